// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of usbethd's profile code (parsing, errors with line and
 * column, matching, specificity and priority, "extends", the directories),
 * built with ASan and UBSan. Prints KTAP; exits 0 when all passed, else 1.
 * argv[1]: the built-in profiles directory.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json.h>

#include "profile.h"
#include "state.h"

#include "unit_check.h"


/* the profiles shipped: enabled (profiles.d) and not (profiles.available) */
static const char *builtin_dirs[2] = { "profiles.d", "profiles.available" };

static struct profile *parse(const char *name, const char *text,
			     struct perr *err)
{
	struct profile *p = NULL;
	struct perr e;

	if (profile_parse(name, name, text, strlen(text), &p, err ? err : &e))
		return NULL;
	return p;
}

/* Parse must fail at line:col with msg containing sub. */
static void expect_err(const char *text, unsigned int line, unsigned int col,
		       const char *sub)
{
	struct profile *p;
	struct perr e;

	p = parse("t", text, &e);
	CHECK(p == NULL);
	profile_free(p);
	if (e.line != line || e.col != col || !strstr(e.msg, sub)) {
		printf("# want %u:%u \"%s\", got %u:%u \"%s\"\n", line, col,
		       sub, e.line, e.col, e.msg);
		cur_ok = false;
	}
}

static void host_dev(struct usbeth_dev *d, uint16_t vid, uint16_t pid)
{
	memset(d, 0, sizeof(*d));
	d->ifindex = 7;
	strcpy(d->ifname, "usb0");
	strcpy(d->driver, "cdc_ncm");
	d->role = USBETH_ROLE_USB_HOST;
	d->caps = USBETH_CAP_NTB | USBETH_CAP_TX_TIMER | USBETH_CAP_BQL;
	d->usb_vid = vid;
	d->usb_pid = pid;
	d->usb_speed = USBETH_USB_SPEED_SUPER;
	d->ntb_dev_rx_max = 65536;
	d->ntb_dev_tx_max = 32768;
	d->present = USBETH_BIT(USBETH_A_IFINDEX) | USBETH_BIT(USBETH_A_ROLE) |
		     USBETH_BIT(USBETH_A_USB_VID) | USBETH_BIT(USBETH_A_USB_PID) |
		     USBETH_BIT(USBETH_A_USB_SPEED) |
		     USBETH_BIT(USBETH_A_NTB_DEV_RX_MAX) |
		     USBETH_BIT(USBETH_A_NTB_DEV_TX_MAX);
}

static void gadget_dev(struct usbeth_dev *d, uint32_t speed, uint32_t max)
{
	memset(d, 0, sizeof(*d));
	d->ifindex = 8;
	strcpy(d->ifname, "usb1");
	strcpy(d->driver, "g_ether");
	d->role = USBETH_ROLE_USB_GADGET;
	d->caps = USBETH_CAP_QMULT;
	d->usb_speed = speed;
	d->gadget_max_speed = max;
	d->present = USBETH_BIT(USBETH_A_IFINDEX) | USBETH_BIT(USBETH_A_ROLE) |
		     USBETH_BIT(USBETH_A_USB_SPEED) |
		     USBETH_BIT(USBETH_A_GADGET_MAX_SPEED);
}

static void add(struct profset *s, const char *name, const char *text)
{
	struct profile *p = parse(name, text, NULL);

	CHECK(p != NULL);
	if (p)
		CHECK_EQ(profset_add(s, p), 0);
}

/* Why a beat b (profset_why()) must say sub. */
static void expect_why(const struct profset *s, const char *a, const char *b,
		       const char *sub)
{
	char why[200];

	profset_why(profset_find(s, a), profset_find(s, b), why, sizeof(why));
	if (!strstr(why, sub)) {
		printf("# why %s beat %s: \"%s\", want \"%s\"\n", a, b, why,
		       sub);
		cur_ok = false;
	}
}

/* ------------------------------------------------------------- tests -- */

static void t_builtins_load(void)
{
	struct usbeth_dev d;
	struct profset s;
	struct perr e;
	uint32_t v;

	/* as an admin who enabled every shipped profile has them */
	CHECK_EQ(profset_load(&s, builtin_dirs, 2, &e), 0);
	if (e.msg[0])
		printf("# %s:%u:%u: %s\n", e.file, e.line, e.col, e.msg);
	CHECK_EQ(s.n, 4);
	host_dev(&d, 0x17e9, 0x4301);
	CHECK_STR(profset_select(&s, &d)->name, "displaylink");
	CHECK(profile_want(profset_find(&s, "displaylink"), K_NTB_RX_MAX, &d,
			   &v));
	CHECK_EQ(v, 65536);
	CHECK(profile_want(profset_find(&s, "displaylink"), K_NTB_TX_MAX, &d,
			   &v));
	CHECK_EQ(v, 32768);
	/* a modem: no shipped profile of its own but on a full-speed link */
	host_dev(&d, 0x1199, 0x9071);
	CHECK_STR(profset_select(&s, &d)->name, "default");
	d.usb_speed = USBETH_USB_SPEED_FULL;
	CHECK_STR(profset_select(&s, &d)->name, "cellular-modem-full-speed");
	CHECK(profile_want(profset_find(&s, "cellular-modem-full-speed"),
			   K_TX_TIMER_USECS, &d, &v));
	CHECK_EQ(v, 0);
	CHECK(profile_want(profset_find(&s, "cellular-modem-full-speed"),
			   K_NTB_TX_MAX, &d, &v));
	CHECK_EQ(v, 8192);
	/* ... and at high speed the default */
	d.usb_speed = USBETH_USB_SPEED_HIGH;
	CHECK_STR(profset_select(&s, &d)->name, "default");
	host_dev(&d, 0x0bda, 0x8153);
	CHECK_STR(profset_select(&s, &d)->name, "default");
	gadget_dev(&d, USBETH_USB_SPEED_SUPER_PLUS, USBETH_USB_SPEED_SUPER_PLUS);
	CHECK_STR(profset_select(&s, &d)->name, "superspeed-gadget");
	gadget_dev(&d, USBETH_USB_SPEED_HIGH, USBETH_USB_SPEED_SUPER);
	CHECK_STR(profset_select(&s, &d)->name, "default");
	/* not connected: matched on what it can do */
	gadget_dev(&d, USBETH_USB_SPEED_UNKNOWN, USBETH_USB_SPEED_SUPER);
	CHECK_STR(profset_select(&s, &d)->name, "superspeed-gadget");
	profset_free(&s);
}

static void t_syntax_errors(void)
{
	expect_err("{\n  \"match\": {\n    \"vid\": \"17e9\",,\n  }\n}\n", 3,
		   19, "property name");
	expect_err("{ \"a\": ", 1, 8, "end of file");
	expect_err("", 1, 1, "end of file");
	expect_err("{}\n{}", 2, 1, "");
	expect_err("{ /* comment */ }", 1, 3, "");
	expect_err("[1, 2]", 1, 1, "must be a JSON object");
}

static void t_schema_errors(void)
{
	expect_err("{\n \"match\": {\n  \"vid\": [\"17e9\", \"zz\"]\n }\n}", 3, 19,
		   "bad USB id \"zz\"");
	expect_err("{\"settings\": {\n\t\"qmult\": 500}}", 2, 11,
		   "out of range 1..100");
	expect_err("{\"setings\": {}}", 1, 2, "unknown key \"setings\"");
	expect_err("{\"settings\": {\"ntb-rx-mux\": 1}}", 1, 15,
		   "unknown setting");
	expect_err("{\"settings\": {\"qmult\": \"device-max\"}}", 1, 24,
		   "must be an integer");
	expect_err("{\"settings\": {\"sg\": 1}}", 1, 21, "true or false");
	expect_err("{\"settings\": {\"tx-timer-usecs\": 3}}", 1, 33,
		   "want 0 (off)");
	expect_err("{\"settings\": {\"mtu\": 1.5}}", 1, 22, "integer");
#if JSON_C_VERSION_NUM < ((0 << 16) | (18 << 8))
	expect_err("{\"settings\": {\"mtu\": 99999999999999999999999}}", 1, 22,
		   "out of range");
#else
	/* json-c 0.18 (Debian 13) refuses an integer beyond int64 itself,
	 * where the number ends, before usbethd sees the value
	 */
	expect_err("{\"settings\": {\"mtu\": 99999999999999999999999}}", 1, 45,
		   "number expected");
#endif
	expect_err("{\"match\": {\"role\": \"hots\"}}", 1, 20, "unknown role");
	expect_err("{\"match\": {\"speed\": \"warp\"}}", 1, 21, "unknown speed");
	expect_err("{\"match\": {\"vid\": []}}", 1, 19, "empty list");
	expect_err("{\"match\": {\"driver\": \"a\\u0000b\"}}", 1, 22, "NUL");
	expect_err("{\"priority\": 10000000}", 1, 14, "priority");
	expect_err("{\"extends\": \"../etc\"}", 1, 13, "not a profile name");
	expect_err("{\"settings\": {\"bql-limit-min\": 9, \"bql-limit-max\": 8}}",
		   1, 32, "above");
	/* json-c keeps the last of two equal keys: refused, at the second,
	 * also when spelt with escapes, and in a nested object
	 */
	expect_err("{\"priority\": 1,\n \"priority\": 2}", 2, 2,
		   "\"priority\" appears twice");
	expect_err("{\"settings\": {\"qmult\": 2, \"q\\u006dult\": 3}}", 1, 27,
		   "\"qmult\" appears twice");
	expect_err("{\"match\": {\"vid\": [\"17e9\"], \"x\": {\"a\": 1, \"a\": 1}}}",
		   1, 43, "\"a\" appears twice");
	/* a key whose name appears earlier as a value is found as a key */
	expect_err("{\"description\": \"vid\", \"match\": {\"x\": 1}}", 1, 34,
		   "unknown match key");
}

static void t_hostile(void)
{
	char *deep = malloc(20001);
	struct profile *p;
	struct perr e;
	int i;

	for (i = 0; i < 10000; i++) {
		deep[i] = '[';
		deep[i + 10000] = ']';
	}
	deep[20000] = 0;
	p = parse("deep", deep, &e);
	CHECK(p == NULL);
	CHECK(e.line == 1);
	free(deep);
	/* not NUL-terminated input */
	CHECK_EQ(profile_parse("x", "x", "{\"match\":{}}xxxx", 12, &p, &e), 0);
	profile_free(p);
	CHECK(profile_parse("x", "bad/name", "{}", 2, &p, &e) != 0);
	CHECK(profile_parse("x", ".hidden", "{}", 2, &p, &e) != 0);
}

static void t_specificity_priority(void)
{
	struct profset s = { 0 };
	struct usbeth_dev d;
	char why[128];

	add(&s, "a-vendor", "{\"match\": {\"vid\": \"17e9\"}}");
	add(&s, "b-vendor-product", "{\"match\": {\"vid\": \"17e9\", \"pid\": [\"1\", \"4301\"]}}");
	add(&s, "c-wild", "{\"priority\": 100, \"match\": {\"vid\": \"*\", \"pid\": \"*\"}}");
	host_dev(&d, 0x17e9, 0x4301);
	CHECK_EQ(profile_specificity(profset_find(&s, "c-wild")), 0);
	CHECK_STR(profset_select(&s, &d)->name, "b-vendor-product");
	expect_why(&s, "b-vendor-product", "a-vendor", "more specific");
	/* same specificity: priority decides */
	add(&s, "d-driver-prio", "{\"priority\": 5, \"match\": {\"driver\": \"cdc_ncm\", \"role\": \"host\"}}");
	CHECK_STR(profset_select(&s, &d)->name, "d-driver-prio");
	expect_why(&s, "d-driver-prio", "b-vendor-product",
		   "higher priority (5 > 0)");
	host_dev(&d, 0x17e9, 0x1234);
	CHECK_STR(profset_select(&s, &d)->name, "d-driver-prio");
	strcpy(d.driver, "r8152");
	CHECK_STR(profset_select(&s, &d)->name, "a-vendor");
	CHECK(!profile_matches(profset_find(&s, "b-vendor-product"), &d, why,
			       sizeof(why)));
	CHECK_STR(why, "pid 1234 not matched");
	profset_free(&s);
}

static void t_match_criteria(void)
{
	struct profset s = { 0 };
	struct usbeth_dev d;
	char why[128];

	add(&s, "glob", "{\"match\": {\"ifname\": [\"eth*\", \"usb?\"]}}");
	add(&s, "exact-high", "{\"match\": {\"speed\": \"high\"}}");
	add(&s, "min-super", "{\"match\": {\"speed-min\": \"super\"}}");
	add(&s, "gadget", "{\"match\": {\"role\": [\"gadget\"]}}");
	add(&s, "nomatch", "{\"settings\": {\"qmult\": 2}}");
	host_dev(&d, 1, 2);
	CHECK(profile_matches(profset_find(&s, "glob"), &d, NULL, 0));
	strcpy(d.ifname, "usb10");
	CHECK(!profile_matches(profset_find(&s, "glob"), &d, why, sizeof(why)));
	CHECK_STR(why, "ifname usb10 not matched");
	CHECK(!profile_matches(profset_find(&s, "exact-high"), &d, NULL, 0));
	CHECK(profile_matches(profset_find(&s, "min-super"), &d, NULL, 0));
	d.usb_speed = USBETH_USB_SPEED_HIGH;
	CHECK(profile_matches(profset_find(&s, "exact-high"), &d, NULL, 0));
	CHECK(!profile_matches(profset_find(&s, "min-super"), &d, why,
			       sizeof(why)));
	CHECK_STR(why, "speed high is below super");
	CHECK(!profile_matches(profset_find(&s, "gadget"), &d, NULL, 0));
	CHECK(!profile_matches(profset_find(&s, "nomatch"), &d, why,
			       sizeof(why)));
	gadget_dev(&d, USBETH_USB_SPEED_UNKNOWN, USBETH_USB_SPEED_UNKNOWN);
	CHECK(profile_matches(profset_find(&s, "gadget"), &d, NULL, 0));
	CHECK(!profile_matches(profset_find(&s, "min-super"), &d, NULL, 0));
	/* a gadget has no VID: a vid criterion never matches it */
	add(&s, "vid", "{\"match\": {\"vid\": \"*\"}}");
	CHECK(!profile_matches(profset_find(&s, "vid"), &d, NULL, 0));
	profset_free(&s);
}

/* A netdev not on USB: only a profile with role "other" (and a driver)
 * matches it; the default's empty match means any USB netdev.
 */
static void t_role_other(void)
{
	struct profset s = { 0 };
	struct usbeth_dev d;
	char why[128];

	expect_err("{\"match\": {\n \"role\": \"other\"}}", 2, 2,
		   "needs a \"driver\"");
	expect_err("{\"match\": {\"role\": \"others\"}}", 1, 20,
		   "\"other\"");
	add(&s, "default", "{\"priority\": -1000, \"match\": {}}");
	add(&s, "drv", "{\"match\": {\"driver\": \"e1000e\"}}");
	add(&s, "nic", "{\"match\": {\"driver\": \"e1000e\", "
	    "\"role\": \"other\"}, \"settings\": {\"tso\": false}}");
	add(&s, "both", "{\"match\": {\"driver\": [\"e1000e\", \"cdc_ncm\"], "
	    "\"role\": [\"host\", \"other\"]}}");
	memset(&d, 0, sizeof(d));
	d.ifindex = 2;
	strcpy(d.ifname, "eth0");
	strcpy(d.driver, "e1000e");
	d.role = USBETH_ROLE_OTHER;
	d.caps = USBETH_CAP_BQL;
	d.present = USBETH_BIT(USBETH_A_IFINDEX) | USBETH_BIT(USBETH_A_ROLE);
	CHECK(!profile_matches(profset_find(&s, "default"), &d, why,
			       sizeof(why)));
	CHECK(strstr(why, "not on USB") != NULL);
	CHECK(!profile_matches(profset_find(&s, "drv"), &d, NULL, 0));
	CHECK(profile_matches(profset_find(&s, "nic"), &d, NULL, 0));
	CHECK(profile_matches(profset_find(&s, "both"), &d, NULL, 0));
	/* "both" is more specific only by its list, not: tie, then name */
	CHECK_STR(profset_select(&s, &d)->name, "both");
	profset_remove(&s, "both");
	CHECK_STR(profset_select(&s, &d)->name, "nic");
	strcpy(d.driver, "igb");
	CHECK(profset_select(&s, &d) == NULL);
	/* a USB host: "nic" (role other only) does not match it */
	host_dev(&d, 0x17e9, 1);
	strcpy(d.driver, "e1000e");
	CHECK(!profile_matches(profset_find(&s, "nic"), &d, why, sizeof(why)));
	CHECK_STR(why, "role usb-host not matched");
	CHECK(profile_matches(profset_find(&s, "drv"), &d, NULL, 0));
	profset_free(&s);
}

static void t_extends(void)
{
	struct profset s = { 0 };
	struct usbeth_dev d;
	struct perr e;
	uint32_t v;

	add(&s, "base", "{\"settings\": {\"qmult\": 3, \"ntb-rx-max\": \"device-max\", \"tx-timer-usecs\": 100}}");
	add(&s, "mid", "{\"extends\": \"base\", \"settings\": {\"qmult\": 4, \"tx-timer-usecs\": null}}");
	add(&s, "leaf", "{\"extends\": \"mid\", \"match\": {}, \"settings\": {\"mtu\": 1400}}");
	CHECK_EQ(profset_resolve(&s, &e), 0);
	host_dev(&d, 1, 2);
	{
		const struct profile *l = profset_find(&s, "leaf");

		CHECK(profile_want(l, K_QMULT, &d, &v));
		CHECK_EQ(v, 4);
		CHECK(profile_want(l, K_NTB_RX_MAX, &d, &v));
		CHECK_EQ(v, 65536);
		CHECK(!profile_want(l, K_TX_TIMER_USECS, &d, &v));
		CHECK(profile_want(l, K_MTU, &d, &v));
		CHECK_EQ(v, 1400);
		/* the base has no match: it never matches by itself */
		CHECK_STR(profset_select(&s, &d)->name, "leaf");
		/* device-max without a device maximum: not wanted */
		d.present &= ~USBETH_BIT(USBETH_A_NTB_DEV_RX_MAX);
		CHECK(!profile_want(l, K_NTB_RX_MAX, &d, &v));
	}
	add(&s, "orphan", "{\"extends\": \"missing\"}");
	CHECK(profset_resolve(&s, &e) != 0);
	CHECK(strstr(e.msg, "no profile named \"missing\"") != NULL);
	CHECK_STR(e.file, "orphan");
	profset_remove(&s, "orphan");
	add(&s, "base", "{\"extends\": \"leaf\"}");	/* replaces: a cycle */
	CHECK(profset_resolve(&s, &e) != 0);
	CHECK(strstr(e.msg, "cycle") != NULL);
	profset_free(&s);

	add(&s, "p", "{\"settings\": {\"bql-limit-max\": 10}}");
	add(&s, "c", "{\"extends\": \"p\", \"settings\": {\"bql-limit-min\": 20}}");
	CHECK(profset_resolve(&s, &e) != 0);
	CHECK(strstr(e.msg, "above") != NULL);
	profset_free(&s);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void t_directories(void)
{
	char tmpl[] = "/tmp/usbethd-unit.XXXXXX", a[64], b[64], path[128];
	const char *dirs[3];
	struct usbeth_dev d;
	struct profset s;
	struct perr e;
	uint32_t v;

	CHECK(mkdtemp(tmpl) != NULL);
	snprintf(a, sizeof(a), "%s/a", tmpl);
	snprintf(b, sizeof(b), "%s/b", tmpl);
	mkdir(a, 0755);
	mkdir(b, 0755);
	dirs[0] = a;
	dirs[1] = b;
	dirs[2] = "/nonexistent/usbethd";
	snprintf(path, sizeof(path), "%s/x.json", a);
	write_file(path, "{\"match\": {}, \"settings\": {\"qmult\": 2}}");
	snprintf(path, sizeof(path), "%s/gone.json", a);
	write_file(path, "{\"match\": {}}");
	snprintf(path, sizeof(path), "%s/notjson.txt", a);
	write_file(path, "garbage");
	snprintf(path, sizeof(path), "%s/x.json", b);
	write_file(path, "{\"match\": {}, \"settings\": {\"qmult\": 7}}");
	snprintf(path, sizeof(path), "%s/gone.json", b);
	write_file(path, "");	/* masks */
	CHECK_EQ(profset_load(&s, dirs, 3, &e), 0);
	CHECK_EQ(s.n, 1);
	gadget_dev(&d, 0, 0);
	if (s.n == 1) {
		CHECK(profile_want(s.p[0], K_QMULT, &d, &v));
		CHECK_EQ(v, 7);
	}
	profset_free(&s);
	snprintf(path, sizeof(path), "%s/broken.json", b);
	write_file(path, "{\n\t\"match\": {\n\t\t\"vid\": 17e9\n\t}\n}\n");
	CHECK(profset_load(&s, dirs, 3, &e) != 0);
	CHECK_EQ(s.n, 0);
	CHECK_STR(e.file, path);
	CHECK_EQ(e.line, 3);
	CHECK(e.col >= 10 && e.col <= 13);
	unlink(path);
	snprintf(path, sizeof(path), "%s/x.json", b);
	unlink(path);
	snprintf(path, sizeof(path), "%s/gone.json", b);
	unlink(path);
	snprintf(path, sizeof(path), "%s/x.json", a);
	unlink(path);
	snprintf(path, sizeof(path), "%s/gone.json", a);
	unlink(path);
	snprintf(path, sizeof(path), "%s/notjson.txt", a);
	unlink(path);
	rmdir(a);
	rmdir(b);
	rmdir(tmpl);
}

/* The first step of the engine's flow: what a profile wants of one
 * device, resolved.
 */
static void t_resolve(void)
{
	struct profile *p = parse("dl", "{\"match\": {}, \"settings\": "
				  "{\"ntb-rx-max\": \"device-max\", "
				  "\"ntb-tx-max\": \"device-max\", "
				  "\"qmult\": 3, \"mtu\": 1400}}", NULL);
	struct usbeth_dev d;
	struct wanted w;

	CHECK(p != NULL);
	if (!p)
		return;
	host_dev(&d, 0x17e9, 0x4301);	/* reports an rx maximum only */
	d.present &= ~USBETH_BIT(USBETH_A_NTB_DEV_TX_MAX);
	profile_resolve(p, &d, &w);
	CHECK_EQ(w.has, 1U << K_NTB_RX_MAX | 1U << K_MTU);
	CHECK_EQ(w.v[K_NTB_RX_MAX], 65536);
	CHECK_EQ(w.v[K_MTU], 1400);
	CHECK_EQ(w.no_max, 1U << K_NTB_TX_MAX);
	CHECK_EQ(w.unsupported, 1U << K_QMULT);	/* a host has no qmult */
	gadget_dev(&d, 0, 0);
	profile_resolve(p, &d, &w);
	CHECK_EQ(w.has, 1U << K_QMULT | 1U << K_MTU);
	CHECK_EQ(w.no_max, 0);		/* no NTB at all: unsupported */
	CHECK_EQ(w.unsupported, 1U << K_NTB_RX_MAX | 1U << K_NTB_TX_MAX);
	profile_resolve(NULL, &d, &w);
	CHECK_EQ(w.has | w.no_max | w.unsupported, 0);
	profile_free(p);
}

static int nwarn;
static char lastwarn[4500];

static void count_warn(const struct perr *e, void *arg)
{
	(void)arg;
	nwarn++;
	perr_format(e, lastwarn, sizeof(lastwarn));
	printf("# skipped: %s\n", lastwarn);
}

/* One bad file does not disable the others (daemon start), the checks run
 * before a file is opened, and --check still refuses.
 */
static void t_bad_files(void)
{
	char tmpl[] = "/tmp/usbethd-unit.XXXXXX", path[160], fifo[160];
	char buf[4096];
	const char *dirs[1];
	struct profset s;
	struct perr e;
	size_t skipped = 99;
	int ifd, wd;

	CHECK(mkdtemp(tmpl) != NULL);
	chmod(tmpl, 0755);
	dirs[0] = tmpl;
#define F(name) (snprintf(path, sizeof(path), "%s/%s", tmpl, name), path)
	write_file(F("good.json"), "{\"match\": {}, \"settings\": {\"qmult\": 2}}");
	write_file(F("broken.json"), "{\"match\": {\"vid\": 17e9}}");
	write_file(F("child.json"), "{\"extends\": \"broken\", \"match\": {}}");
	write_file(F("my profile.json"), "{\"match\": {}}");
	write_file(F("ww.json"), "{\"match\": {}}");
	chmod(path, 0666);
	write_file(F("gw.json"), "{\"match\": {}}");
	chmod(path, 0664);
	CHECK_EQ(chown(path, 0, 4242), 0);
	mkdir(F("dir.json"), 0755);
	CHECK_EQ(symlink("/nonexistent/x.json", F("dangling.json")), 0);
	CHECK_EQ(symlink("/dev/zero", F("zero.json")), 0);
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", tmpl);
	CHECK_EQ(mkfifo(fifo, 0644), 0);
	/* the FIFO must not even be opened: inotify would see it */
	ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	wd = inotify_add_watch(ifd, fifo, IN_OPEN);
	CHECK(ifd >= 0 && wd >= 0);

	nwarn = 0;
	CHECK_EQ(profset_load_mode(&s, dirs, 1, PROFSET_SKIP_BAD, count_warn,
				   NULL, &skipped, &e), 0);
	CHECK_EQ(s.n, 1);
	if (s.n == 1)
		CHECK_STR(s.p[0]->name, "good");
	/* broken, child (its parent skipped), my profile, ww, gw, dir,
	 * dangling, zero, fifo
	 */
	CHECK_EQ(skipped, 9);
	CHECK_EQ(nwarn, 9);
	profset_free(&s);
	CHECK(read(ifd, buf, sizeof(buf)) < 0);

	/* --check: the first problem fails the load */
	CHECK(profset_load(&s, dirs, 1, &e) != 0);
	CHECK_EQ(s.n, 0);
	CHECK(strstr(e.file, "/broken.json") != NULL);

	/* reload: odd files skipped, a bad profile fails (old config kept) */
	unlink(F("broken.json"));
	unlink(F("child.json"));
	unlink(F("ww.json"));
	unlink(F("gw.json"));
	nwarn = 0;
	CHECK_EQ(profset_load_mode(&s, dirs, 1, PROFSET_SKIP_ODD, count_warn,
				   NULL, NULL, &e), 0);
	CHECK_EQ(s.n, 1);
	CHECK_EQ(nwarn, 5);
	profset_free(&s);
	write_file(F("ww.json"), "{\"match\": {}}");
	chmod(path, 0646);
	CHECK(profset_load_mode(&s, dirs, 1, PROFSET_SKIP_ODD, count_warn,
				NULL, NULL, &e) != 0);
	CHECK(strstr(e.msg, "writable by everyone") != NULL);
	unlink(F("ww.json"));

	/* a directory others may write: refused as a whole */
	chmod(tmpl, 0777);
	nwarn = 0;
	CHECK_EQ(profset_load_mode(&s, dirs, 1, PROFSET_SKIP_BAD, count_warn,
				   NULL, NULL, &e), 0);
	CHECK_EQ(s.n, 0);
	CHECK_EQ(nwarn, 1);
	CHECK(strstr(lastwarn, "directory refused") != NULL);
	profset_free(&s);
	chmod(tmpl, 0755);

	close(ifd);
	unlink(F("good.json"));
	unlink(F("my profile.json"));
	rmdir(F("dir.json"));
	unlink(F("dangling.json"));
	unlink(F("zero.json"));
	unlink(fifo);
	rmdir(tmpl);
#undef F
}

/*
 * An administrator's override that cannot be used (a typo in
 * /etc/usbeth/profiles.d/displaylink.json) keeps the earlier directory's
 * profile of that name masked, and the warning says so: the vendor
 * profile the admin meant to replace never applies by accident.
 */
static void t_override_broken(void)
{
	char vt[] = "/tmp/usbethd-vendor.XXXXXX", at[] = "/tmp/usbethd-admin.XXXXXX";
	char path[160];
	const char *dirs[2];
	struct profset s;
	struct perr e;
	size_t skipped = 0;

	CHECK(mkdtemp(vt) != NULL && mkdtemp(at) != NULL);
	chmod(vt, 0755);
	chmod(at, 0755);
	dirs[0] = vt;
	dirs[1] = at;
	snprintf(path, sizeof(path), "%s/displaylink.json", vt);
	write_file(path, "{\"match\": {}, \"settings\": {\"qmult\": 2}}");
	snprintf(path, sizeof(path), "%s/other.json", vt);
	write_file(path, "{\"match\": {}, \"settings\": {\"qmult\": 3}}");
	snprintf(path, sizeof(path), "%s/displaylink.json", at);
	write_file(path, "{\"match\": {\"vid\": 17e9}}");	/* the typo */

	/* at start: skipped, the vendor's displaylink stays masked */
	nwarn = 0;
	CHECK_EQ(profset_load_mode(&s, dirs, 2, PROFSET_SKIP_BAD, count_warn,
				   NULL, &skipped, &e), 0);
	CHECK_EQ(skipped, 1);
	CHECK_EQ(nwarn, 1);
	CHECK(profset_find(&s, "displaylink") == NULL);
	CHECK(profset_find(&s, "other") != NULL);
	CHECK(strstr(lastwarn, "displaylink.json") != NULL);
	CHECK(strstr(lastwarn, "stays masked") != NULL);
	profset_free(&s);

	/* an override that is no file at all (a dangling link) masks too,
	 * also on reload, where odd files are skipped
	 */
	unlink(path);
	CHECK_EQ(symlink("/nonexistent/displaylink.json", path), 0);
	nwarn = 0;
	CHECK_EQ(profset_load_mode(&s, dirs, 2, PROFSET_SKIP_ODD, count_warn,
				   NULL, NULL, &e), 0);
	CHECK(profset_find(&s, "displaylink") == NULL);
	CHECK(strstr(lastwarn, "stays masked") != NULL);
	profset_free(&s);

	/* a good override still replaces it, with no warning */
	unlink(path);
	write_file(path, "{\"match\": {}, \"settings\": {\"qmult\": 4}}");
	nwarn = 0;
	CHECK_EQ(profset_load_mode(&s, dirs, 2, PROFSET_SKIP_BAD, count_warn,
				   NULL, NULL, &e), 0);
	CHECK(profset_find(&s, "displaylink") != NULL);
	CHECK_EQ(nwarn, 0);
	profset_free(&s);

	unlink(path);
	snprintf(path, sizeof(path), "%s/displaylink.json", vt);
	unlink(path);
	snprintf(path, sizeof(path), "%s/other.json", vt);
	unlink(path);
	rmdir(vt);
	rmdir(at);
}

/* Records carry the boot they were written in: a runtime directory that
 * outlived a reboot (not a tmpfs) never hands originals to the device
 * that has the same ifindex now. One without a boot id (an older usbethd)
 * is kept only when its ifindex still has its name.
 */
static void t_state_boot(void)
{
	char tmpl[] = "/tmp/usbethd-boot.XXXXXX", path[160], text[512];
	struct rec r = { 0 }, *list = NULL;
	struct stat st;
	FILE *f;
	int fd;

	CHECK(mkdtemp(tmpl) != NULL);
	snprintf(path, sizeof(path), "%s/dev-1", tmpl);
	r.ifindex = 1;		/* the loopback: its name is "lo" here */
	strcpy(r.ifname, "lo");
	r.orig[K_MTU] = 65536;
	r.orig_has = 1U << K_MTU;
	CHECK_EQ(state_save(tmpl, &r), 0);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		size_t n = fread(text, 1, sizeof(text) - 1, f);

		text[n] = 0;
		fclose(f);
		CHECK(strstr(text, "\nboot ") != NULL);
	}
	CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 1);
	if (list) {
		free(list);
		list = NULL;
	}
#define PUT(body) do { \
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600); \
		CHECK(fd >= 0); \
		CHECK(write(fd, body, strlen(body)) == (ssize_t)strlen(body)); \
		close(fd); \
	} while (0)
	/* another boot's: dropped, and removed */
	PUT("usbethd-record 1\nboot 00000000-0000-4000-8000-000000000000\n"
	    "ifindex 1\nifname lo\norig mtu 1500\n");
	CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 0);
	CHECK(list == NULL);
	CHECK(stat(path, &st) != 0);
	/* not a boot id */
	PUT("usbethd-record 1\nboot ../../x\nifindex 1\nifname lo\n"
	    "orig mtu 1500\n");
	CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 0);
	CHECK(list == NULL);
	/* no boot id: kept while the name holds ... */
	PUT("usbethd-record 1\nifindex 1\nifname lo\norig mtu 1500\n");
	CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 1);
	if (list) {
		free(list);
		list = NULL;
	}
	/* ... and dropped when the ifindex has another name */
	PUT("usbethd-record 1\nifindex 1\nifname eth9\norig mtu 1500\n");
	CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 0);
	CHECK(list == NULL);
	CHECK(stat(path, &st) != 0);
	/* read-only (--explain): a bad record is skipped, not removed */
	PUT("usbethd-record 1\nifindex 1\nifname eth9\norig mtu 1500\n");
	CHECK_EQ(state_load_all(tmpl, &list, NULL, false), 0);
	CHECK_EQ(stat(path, &st), 0);
	unlink(path);
#undef PUT
	rmdir(tmpl);
}

/* Records on disk: what is written is read back; anything else is
 * dropped, never half-trusted.
 */
static void t_state(void)
{
	char tmpl[] = "/tmp/usbethd-state.XXXXXX", path[160], why[256];
	struct rec r = { 0 }, *list = NULL, *l;
	struct bql_orig q[2] = { { 0, 0, 1000, 1000 }, { 1, 5, 6, 7 } };
	struct stat st;
	int fd, n;

	CHECK(mkdtemp(tmpl) != NULL);
	chmod(tmpl, 0755);
	CHECK_EQ(state_dir_check(tmpl, why, sizeof(why)), 0);
	r.ifindex = 7;
	strcpy(r.ifname, "enx020000000001");
	r.role = USBETH_ROLE_USB_HOST;
	strcpy(r.profile, "displaylink");
	r.orig[K_TX_TIMER_USECS] = 400;
	r.orig[K_NTB_TX_MAX] = 16384;
	r.orig_has = 1U << K_TX_TIMER_USECS | 1U << K_NTB_TX_MAX;
	r.f_orig = 5;
	r.bql = q;
	r.n_bql = 2;
	r.req[K_NTB_TX_MAX] = 65536;
	r.got[K_NTB_TX_MAX] = 65537;
	r.got_has = 1U << K_NTB_TX_MAX;
	CHECK_EQ(state_save(tmpl, &r), 0);
	snprintf(path, sizeof(path), "%s/dev-7", tmpl);
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0600);
	n = state_load_all(tmpl, &list, NULL, true);
	CHECK_EQ(n, 1);
	l = list;
	CHECK(l != NULL);
	if (l) {
		CHECK_EQ(l->ifindex, 7);
		CHECK_STR(l->ifname, "enx020000000001");
		CHECK_STR(l->profile, "displaylink");
		CHECK_EQ(l->orig_has, r.orig_has);
		CHECK_EQ(l->orig[K_TX_TIMER_USECS], 400);
		CHECK_EQ(l->orig[K_NTB_TX_MAX], 16384);
		CHECK_EQ(l->f_orig, 5);
		CHECK_EQ(l->n_bql, 2);
		if (l->n_bql == 2)
			CHECK_EQ(l->bql[1].hold_time, 7);
		CHECK_EQ(l->got[K_NTB_TX_MAX], 65537);
		CHECK_EQ(l->carrier, -1);
		free(l->bql);
		free(l);
	}
	/* no originals left, but a knob someone else changed: the file stays,
	 * so that a restarted daemon leaves it alone too
	 */
	r.orig_has = 0;
	r.theirs = 1U << K_TX_TIMER_USECS;
	CHECK_EQ(state_save(tmpl, &r), 0);
	list = NULL;
	CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 1);
	if (list) {
		CHECK_EQ(list->theirs, 1U << K_TX_TIMER_USECS);
		CHECK_EQ(list->orig_has, 0);
		free(list->bql);
		free(list);
	}
	/* nothing left: the file goes */
	r.theirs = 0;
	CHECK_EQ(state_save(tmpl, &r), 0);
	CHECK(stat(path, &st) != 0);

	/* hostile files: dropped and removed */
	{
		static const char *const bad[] = {
			"usbethd-record 2\nifindex 9\nifname a\norig qmult 1\n",
			"usbethd-record 1\nifindex 8\nifname a\norig qmult 1\n",
			"usbethd-record 1\nifindex 9\nifname a\norig qmult 1",
			"usbethd-record 1\nifindex 9\nifname a\norig qmult 99999999999\n",
			"usbethd-record 1\nifindex 9\nifname a\norig nope 1\n",
			"usbethd-record 1\nifindex 9\nifname a\norig qmult  1\n",
			"usbethd-record 1\nifindex 9\nifname a\norig qmult -1\n",
			"usbethd-record 1\nifindex 9\nifname a\n",
			"usbethd-record 1\nifindex 9\nifname aaaaaaaaaaaaaaaaa\norig qmult 1\n",
			"usbethd-record 1\nifindex 9\nifname a\norig qmult 1\norig qmult 2\n",
			"usbethd-record 1\nifindex 9\nifname a\x00\norig qmult 1\n",
			"usbethd-record 1\nifindex 9\nifname a\ntheirs nope\n",
			"usbethd-record 1\nifindex 9\nifname a\ntheirs qmult\ntheirs qmult\n",
			"usbethd-record 1\nifindex 9\nifname a\ntheirs qmult 1\n",
		};
		size_t i;

		snprintf(path, sizeof(path), "%s/dev-9", tmpl);
		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			CHECK(fd >= 0);
			/* the NUL case: its length up to the last \n */
			CHECK(write(fd, bad[i], i == 10 ? 42 : strlen(bad[i])) > 0);
			close(fd);
			list = NULL;
			CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 0);
			CHECK(list == NULL);
			CHECK(stat(path, &st) != 0);
		}
		/* one that others may write */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		CHECK(write(fd, "usbethd-record 1\nifindex 9\nifname a\n"
			    "orig qmult 1\n", 48) == 48);
		fchmod(fd, 0666);
		close(fd);
		list = NULL;
		CHECK_EQ(state_load_all(tmpl, &list, NULL, true), 0);
		CHECK(list == NULL);
	}
	/* the lock: 0600 even when an older usbethd made it 0644 */
	snprintf(path, sizeof(path), "%s/daemon.lock", tmpl);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	close(fd);
	fd = state_lock_open(tmpl, "daemon.lock", why, sizeof(why));
	CHECK(fd >= 0);
	CHECK_EQ(stat(path, &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0600);
	close(fd);
	unlink(path);
	/* ... and never through a link */
	CHECK_EQ(symlink("/tmp/elsewhere", path), 0);
	CHECK_EQ(state_lock_open(tmpl, "daemon.lock", why, sizeof(why)), -1);
	unlink(path);
	/* a runtime directory others may write is refused */
	chmod(tmpl, 0777);
	CHECK_EQ(state_dir_check(tmpl, why, sizeof(why)), -1);
	CHECK(strstr(why, "writable by others") != NULL);
	rmdir(tmpl);
}

static void t_knob_names(void)
{
	int k;

	for (k = 0; k < K_COUNT; k++)
		CHECK_EQ(knob_by_name(knob_table[k].name), k);
	CHECK_EQ(knob_by_name("ntb_rx_max"), K_NTB_RX_MAX);
	CHECK_EQ(knob_by_name("nope"), -1);
	CHECK_EQ(knob_by_name("a-very-long-name-beyond-any-buffer-size-x"), -1);
	for (k = 0; k < K_COUNT; k++)
		if (knob_table[k].kind == KIND_USBETH)
			CHECK(usbeth_attr_settable(knob_table[k].attr));
}

static void t_line_col(void)
{
	unsigned int l, c;

	text_line_col("ab\ncd", 5, 4, &l, &c);
	CHECK_EQ(l, 2);
	CHECK_EQ(c, 2);
	text_line_col("\xc3\xa9x", 3, 2, &l, &c);	/* é is one column */
	CHECK_EQ(l, 1);
	CHECK_EQ(c, 2);
	text_line_col("ab", 2, 99, &l, &c);
	CHECK_EQ(c, 3);
}

/* The winner for d once path holds text, with dirs loaded and the
 * profiles of avail marked: its name, in buf.
 */
static const char *winner_with(const char *const *dirs,
			       const struct profset *avail, const char *path,
			       const char *text, const struct usbeth_dev *d,
			       char *buf, size_t len)
{
	const struct profile *w;
	struct profset s;
	struct perr e;

	write_file(path, text);
	buf[0] = 0;
	if (profset_load(&s, dirs, 2, &e)) {
		printf("# %s: %s\n", e.file, e.msg);
		return buf;
	}
	profset_mark_available(&s, avail);
	w = profset_select(&s, d);
	snprintf(buf, len, "%s", w ? w->name : "(none)");
	profset_free(&s);
	return buf;
}

/*
 * Precedence an administrator can predict: their own profile, as specific
 * as a shipped one and of the same priority, wins over it, whether the
 * shipped one is in an earlier directory or enabled by a copy next to
 * theirs (it keeps ranking as shipped); priority, then specificity, still
 * come first.
 */
static void t_admin_wins_ties(void)
{
	char tmpl[] = "/tmp/usbethd-unit.XXXXXX", etc[64], path[160];
	const char *dirs[2];
	struct usbeth_dev d;
	struct profset s, avail;
	struct perr e;
	char why[200];
	size_t i;

	CHECK(mkdtemp(tmpl) != NULL);
	chmod(tmpl, 0755);
	snprintf(etc, sizeof(etc), "%s/etc", tmpl);
	mkdir(etc, 0755);
	dirs[0] = builtin_dirs[0];
	dirs[1] = etc;
	CHECK_EQ(profset_load_available(&avail, builtin_dirs[1], NULL, NULL,
					&e), 0);
	/* every shipped profile leaves the tie to the admin's of priority 0 */
	for (i = 0; i < avail.n; i++)
		CHECK(avail.p[i]->priority <= 0);
	/* displaylink enabled by a copy, the admin's own for one dock beside */
	snprintf(path, sizeof(path), "%s/displaylink.json", builtin_dirs[1]);
	{
		FILE *f = fopen(path, "r");
		char buf[8192];
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		CHECK(f != NULL);
		if (f)
			fclose(f);
		buf[n] = 0;
		snprintf(path, sizeof(path), "%s/displaylink.json", etc);
		write_file(path, buf);
	}
	snprintf(path, sizeof(path), "%s/my-dock.json", etc);
	write_file(path, "{\"match\": {\"vid\": \"17e9\", \"pid\": \"4301\", "
		   "\"role\": \"host\"}, \"settings\": {\"tx-timer-usecs\": 100}}");
	CHECK_EQ(profset_load(&s, dirs, 2, &e), 0);
	host_dev(&d, 0x17e9, 0x4301);
	/* unmarked, both are the admin's files: the name decides */
	CHECK_STR(profset_select(&s, &d)->name, "displaylink");
	profset_mark_available(&s, &avail);
	CHECK(profset_find(&s, "displaylink")->available);
	CHECK(!profset_find(&s, "my-dock")->available);
	CHECK_STR(profset_select(&s, &d)->name, "my-dock");
	expect_why(&s, "my-dock", "displaylink", "your own wins the tie");
	/* another dock of the vendor: the shipped one still applies */
	host_dev(&d, 0x17e9, 0x4300);
	CHECK_STR(profset_select(&s, &d)->name, "displaylink");
	profset_free(&s);
	/* a priority below the shipped one's loses the tie */
	host_dev(&d, 0x17e9, 0x4301);
	CHECK_STR(winner_with(dirs, &avail, path, "{\"priority\": -1, "
			      "\"match\": {\"vid\": \"17e9\", \"pid\": \"4301\", "
			      "\"role\": \"host\"}}", &d, why, sizeof(why)),
		  "displaylink");
	/* less specific loses whatever the directory */
	CHECK_STR(winner_with(dirs, &avail, path, "{\"priority\": 50, "
			      "\"match\": {\"vid\": \"17e9\", \"role\": \"host\"}}",
			      &d, why, sizeof(why)), "displaylink");
	/* two of the admin's in one directory: the name */
	write_file(path, "{\"match\": {\"vid\": \"17e9\", \"driver\": "
		   "\"cdc_ncm\", \"role\": \"host\"}}");
	snprintf(path, sizeof(path), "%s/displaylink.json", etc);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a-dock.json", etc);
	write_file(path, "{\"match\": {\"vid\": \"17e9\", \"pid\": \"4301\", "
		   "\"role\": \"host\"}}");
	CHECK_EQ(profset_load(&s, dirs, 2, &e), 0);
	profset_mark_available(&s, &avail);
	CHECK_STR(profset_select(&s, &d)->name, "a-dock");
	expect_why(&s, "a-dock", "my-dock", "name sorts first");
	profset_free(&s);
	profset_free(&avail);
	unlink(path);
	snprintf(path, sizeof(path), "%s/my-dock.json", etc);
	unlink(path);
	rmdir(etc);
	rmdir(tmpl);
}

/* usbethd --explain --device: a description is parsed as hostile input. */
static void t_describe(void)
{
	static const char *const bad[] = {
		"", ",", "vid", "vid=", "vid=12345", "vid=0xg", "pid=-1",
		"speed=warp", "max-speed=", "role=usb", "driver=",
		"driver=0123456789012345678901234567890123",
		"ifname=0123456789abcdef", "colour=red", "=1",
		"role=gadget,vid=1d6b", "role=other,pid=1",
	};
	struct usbeth_dev d;
	char err[256];
	size_t i;
	char big[600];

	CHECK_EQ(dev_describe("vid=0x1199,pid=9071,driver=cdc_ncm,speed=super",
			      &d, err, sizeof(err)), 0);
	CHECK_EQ(d.role, USBETH_ROLE_USB_HOST);
	CHECK_EQ(d.usb_vid, 0x1199);
	CHECK_EQ(d.usb_pid, 0x9071);
	CHECK_STR(d.driver, "cdc_ncm");
	CHECK_EQ(d.usb_speed, USBETH_USB_SPEED_SUPER);
	CHECK_EQ(dev_describe("role=gadget,max-speed=super-plus,ifname=usb0",
			      &d, err, sizeof(err)), 0);
	CHECK_EQ(d.role, USBETH_ROLE_USB_GADGET);
	CHECK_EQ(d.gadget_max_speed, USBETH_USB_SPEED_SUPER_PLUS);
	CHECK_STR(d.ifname, "usb0");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (!dev_describe(bad[i], &d, err, sizeof(err)))
			printf("# accepted: \"%s\"\n", bad[i]);
		CHECK(err[0] != 0);
	}
	CHECK(dev_describe("speed=warp", &d, err, sizeof(err)) != 0);
	CHECK(strstr(err, "\"warp\"") != NULL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	CHECK(dev_describe(big, &d, err, sizeof(err)) != 0);
}

static const struct unit_test tests[] = {
	{ "builtin_profiles_load_and_select", t_builtins_load },
	{ "syntax_errors_line_col", t_syntax_errors },
	{ "schema_errors_line_col", t_schema_errors },
	{ "hostile_inputs", t_hostile },
	{ "specificity_then_priority", t_specificity_priority },
	{ "admin_profile_wins_ties", t_admin_wins_ties },
	{ "device_description", t_describe },
	{ "match_criteria", t_match_criteria },
	{ "role_other_needs_opt_in", t_role_other },
	{ "extends_inheritance", t_extends },
	{ "directories_override_mask_error", t_directories },
	{ "resolve_wanted_values", t_resolve },
	{ "bad_files_skipped_unopened", t_bad_files },
	{ "broken_override_keeps_masked", t_override_broken },
	{ "state_records", t_state },
	{ "state_boot_id", t_state_boot },
	{ "knob_names", t_knob_names },
	{ "line_col", t_line_col },
};

int main(int argc, char **argv)
{
	if (argc > 2) {
		builtin_dirs[0] = argv[1];
		builtin_dirs[1] = argv[2];
	}
	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
