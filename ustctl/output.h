/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What ustctl prints: text for people on stdout, or with --mi xml one XML
 * document per invocation (doc/xml/ustctl-mi.xsd). Errors always go to
 * stderr, and into the document too.
 */
#ifndef USTCTL_OUTPUT_H
#define USTCTL_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Starts the output of one invocation; with mi, the XML root element. */
int ustctl_out_begin(bool mi);
bool ustctl_out_mi(void);
/* Names the command on the root element (known once it was parsed). */
void ustctl_out_command(const char *command);
/* --help and --version print text only: no document. */
void ustctl_out_cancel(void);
/* Ends the document, prints it and returns exit_status, or 1 when the
 * document could not be written. */
int ustctl_out_end(int exit_status);

/*
 * The XML elements, in document order; no-ops without --mi. Text is
 * sanitized: bytes that are not valid UTF-8 or not allowed in XML become '?'.
 */
void ustctl_mi_open(const char *element);
void ustctl_mi_attr(const char *name, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ustctl_mi_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ustctl_mi_close(void);
/* <element>text</element> */
void ustctl_mi_element(const char *element, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* <process pid="PID" success="..." [trace="TRACE"]>: closed by ustctl_mi_close(). */
void ustctl_mi_open_process(pid_t pid, const char *trace, bool success);
/* <rule action=... loglevel=... filter=...>PATTERN</rule> */
struct ustctl_rule;
void ustctl_mi_rule(const struct ustctl_rule *rule);

/* An error: on stderr as "ustctl: error: pid PID: MESSAGE" (without pid
 * when pid is 0), and as <error pid="PID"> at the current place. */
void ustctl_fail(pid_t pid, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
