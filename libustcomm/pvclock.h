/* SPDX-License-Identifier: LGPL-2.1-only */
/*
 * Whether the kernel's kvm-clock is the TSC, the same on every vCPU.
 *
 * Under KVM the guest kernel keeps time with kvm-clock (pvclock): per vCPU,
 * the host publishes a TSC value, the time then and a multiplier, and the
 * time is read as a scaled rdtsc. When the host sets PVCLOCK_TSC_STABLE_BIT
 * it guarantees one global clock: the vCPUs' TSCs agree and their pvclock
 * parameters are the same (KVM's master clock), which is also the only case
 * in which the vDSO serves kvm-clock without a system call. The kernel maps
 * vCPU 0's page read-only into every process, for that vDSO.
 */
#ifndef USTCOMM_PVCLOCK_H
#define USTCOMM_PVCLOCK_H

#include <stdint.h>

/*
 * Returns 0 and the frequency, in Hz, that kvm-clock gives the TSC when the
 * vDSO's kvm-clock page can be read and says the clock is stable; -ENOTSUP
 * otherwise (no such page, not stable, another kernel layout), or another
 * negative errno. Async-signal-safe: open, read, pipe2, write, close.
 */
int ustcomm_pvclock_stable_hz(uint64_t *hz);

#endif
