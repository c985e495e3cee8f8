/* SPDX-License-Identifier: LGPL-2.1-only */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "libustcomm/relay_url.h"

#define RELAY_SCHEME	"net://"

/* Digits by hand: libust parses URLs in signal context (no strtoul()). */
static int relay_url_port(const char *text, size_t len, uint16_t *port, const char **why)
{
	uint32_t v = 0;
	size_t i;

	if (len == 0) {
		*why = "a port is empty";
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9' || i >= 5)
			break;
		v = v * 10 + (uint32_t)(text[i] - '0');
	}
	if (i < len || v == 0 || v > 65535) {
		*why = "a port is a number from 1 to 65535";
		return -EINVAL;
	}
	*port = (uint16_t)v;
	return 0;
}

/* Host names and address literals only: nothing a resolver would take as
 * a path, an option or a second URL. */
static bool relay_url_host_ok(const char *host, bool bracketed)
{
	const char *p;

	if (!*host)
		return false;
	for (p = host; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == '_')
			continue;
		if (bracketed && (*p == ':' || *p == '%'))
			continue;
		return false;
	}
	return host[0] != '-';
}

int ustcomm_relay_url_parse(const char *text, struct ustcomm_relay_url *url,
			    const char **why)
{
	const char *p = text, *host, *host_end, *colon;
	bool bracketed = false;
	size_t len;
	int ret;

	memset(url, 0, sizeof(*url));
	url->ctrl_port = USTCOMM_RELAY_CTRL_PORT;
	url->data_port = USTCOMM_RELAY_DATA_PORT;
	if (strncmp(p, RELAY_SCHEME, strlen(RELAY_SCHEME)) != 0) {
		*why = "a relay URL starts with net://";
		return -EINVAL;
	}
	p += strlen(RELAY_SCHEME);
	host = p;
	if (*p == '[') {
		bracketed = true;
		host = ++p;
		host_end = strchr(p, ']');
		if (!host_end) {
			*why = "an IPv6 address in brackets lacks its ]";
			return -EINVAL;
		}
		p = host_end + 1;
	} else {
		host_end = p + strcspn(p, ":/");
		p = host_end;
	}
	len = (size_t)(host_end - host);
	if (len == 0 || len >= sizeof(url->host)) {
		*why = len ? "the host name is too long" : "the host is missing";
		return -EINVAL;
	}
	memcpy(url->host, host, len);
	if (!relay_url_host_ok(url->host, bracketed)) {
		*why = bracketed ? "the IPv6 address has characters no address has" :
			"the host is not a host name, an IPv4 address or an [IPv6] address";
		return -EINVAL;
	}
	if (*p == ':') {
		p++;
		colon = strchr(p, ':');
		len = colon ? (size_t)(colon - p) : strcspn(p, "/");
		ret = relay_url_port(p, len, &url->ctrl_port, why);
		if (ret < 0)
			return ret;
		p += len;
		if (colon) {
			p++;
			len = strcspn(p, "/");
			ret = relay_url_port(p, len, &url->data_port, why);
			if (ret < 0)
				return ret;
			p += len;
		}
	}
	if (*p) {
		*why = *p == '/' ? "a path after the host is not supported: relayd names the trace's directory itself" :
			"unexpected characters after the host";
		return -EINVAL;
	}
	if (url->ctrl_port == url->data_port) {
		*why = "the control and data ports must differ";
		return -EINVAL;
	}
	return 0;
}
