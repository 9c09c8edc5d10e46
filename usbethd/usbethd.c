// SPDX-License-Identifier: GPL-2.0
/*
 * usbethd: applies usbeth profiles to USB network devices as they appear
 * (the family's NEW notifications), and to those present at start; restores
 * what it changed when a profile stops applying (SIGHUP reload) and on stop.
 *
 *   usbethd [OPTIONS]             run (foreground; Type=notify under systemd)
 *   usbethd --check               validate the profiles, exit 1 on an error
 *   usbethd --explain [DEV...]    which profiles match, the winner, the diff
 *   usbethd --explain --device D  the same for a device described (D)
 *   usbethd --apply DEV           one-shot apply (the udev path)
 *
 * This file: the options, and which command runs (usbethd.h); what the
 * commands share is common.c's.
 * See usbethd(8) and usbethd.profiles(5).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "usbethd.h"

#define VERSION "0.1.0"

static const char *prog = "usbethd";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [OPTIONS]            run the daemon (foreground)\n"
		"       %s --check [OPTIONS]    validate the profiles\n"
		"       %s --explain [DEV...]   which profile wins for each device\n"
		"                               (every one without DEV), why, and\n"
		"                               what it would change\n"
		"       %s --explain --device KEY=VALUE[,KEY=VALUE...]\n"
		"                               the same for a device described:\n"
		"                               vid, pid, driver, role, speed,\n"
		"                               max-speed, ifname\n"
		"       %s --apply DEV          apply DEV's profile once\n"
		"options:\n"
		"  -d, --profiles-dir DIR   profile directory (repeatable; later\n"
		"                           ones override earlier ones by name\n"
		"                           and win ties; default\n"
		"                           /usr/share/usbeth/profiles.d then\n"
		"                           /etc/usbeth/profiles.d)\n"
		"      --available-dir DIR  profiles shipped disabled: listed by\n"
		"                           --explain, never applied (default\n"
		"                           /usr/share/usbeth/profiles.available\n"
		"                           when no -d is given)\n"
		"      --on-stop restore|keep  on stop (default restore)\n"
		"      --runtime-dir DIR    locks and records of originals\n"
		"                           (default /run/usbethd)\n"
		"      --rcvbuf BYTES       receive buffer of the notification\n"
		"                           sockets (default: the kernel's)\n"
		"      --force              --apply even when the daemon runs\n"
		"  -v, --verbose            debug messages\n"
		"  -q, --quiet              changes, warnings and errors only\n"
		"  -h, --help               this text\n"
		"      --version            the version\n", prog, prog, prog,
		prog, prog);
}

int main(int argc, char **argv)
{
	enum { O_CHECK = 256, O_EXPLAIN, O_APPLY, O_ON_STOP, O_RUNTIME,
	       O_FORCE, O_VERSION, O_RCVBUF, O_DEVICE, O_AVAILABLE };
	static const struct option opts[] = {
		{ "profiles-dir", required_argument, NULL, 'd' },
		{ "check", no_argument, NULL, O_CHECK },
		{ "explain", no_argument, NULL, O_EXPLAIN },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "available-dir", required_argument, NULL, O_AVAILABLE },
		{ "apply", required_argument, NULL, O_APPLY },
		{ "on-stop", required_argument, NULL, O_ON_STOP },
		{ "runtime-dir", required_argument, NULL, O_RUNTIME },
		{ "force", no_argument, NULL, O_FORCE },
		{ "rcvbuf", required_argument, NULL, O_RCVBUF },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 }
	};
	const char *apply = NULL, *descs[MAX_DIRS];
	bool check = false, explain = false, force = false, avail_set = false;
	size_t ndescs = 0;
	int o;

	while ((o = getopt_long(argc, argv, "d:vqh", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			if (ndirs >= MAX_DIRS) {
				fprintf(stderr, "%s: at most %d profile "
					"directories\n", prog, MAX_DIRS);
				return 1;
			}
			dirs[ndirs++] = optarg;
			break;
		case O_CHECK:
			check = true;
			break;
		case O_EXPLAIN:
			explain = true;
			break;
		case O_DEVICE:
			if (ndescs >= MAX_DIRS) {
				fprintf(stderr, "%s: at most %d --device\n",
					prog, MAX_DIRS);
				return 1;
			}
			descs[ndescs++] = optarg;
			break;
		case O_AVAILABLE:
			available_dir = optarg;
			avail_set = true;
			break;
		case O_APPLY:
			apply = optarg;
			break;
		case O_ON_STOP:
			if (!strcmp(optarg, "restore")) {
				restore_on_stop = true;
			} else if (!strcmp(optarg, "keep")) {
				restore_on_stop = false;
			} else {
				fprintf(stderr, "%s: --on-stop: want restore "
					"or keep\n", prog);
				return 1;
			}
			break;
		case O_RUNTIME:
			runtime_dir = optarg;
			break;
		case O_FORCE:
			force = true;
			break;
		case O_RCVBUF: {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    v < 1 || v > INT_MAX / 2) {
				fprintf(stderr, "%s: --rcvbuf: want bytes, 1 to "
					"%d\n", prog, INT_MAX / 2);
				return 1;
			}
			rcvbuf = (int)v;
			break;
		}
		case 'v':
			ulog_level = LOG_P_DEBUG;
			break;
		case 'q':
			ulog_level = LOG_P_NOTICE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case O_VERSION:
			printf("usbethd %s\n", VERSION);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if ((optind != argc && !explain) || (check + explain + !!apply) > 1) {
		usage(stderr);
		return 1;
	}
	if (ndescs && (!explain || optind != argc)) {
		fprintf(stderr, "%s: --device goes with --explain, and no DEV\n",
			prog);
		return 1;
	}
	if (!ndirs) {
		dirs[ndirs++] = "/usr/share/usbeth/profiles.d";
		dirs[ndirs++] = "/etc/usbeth/profiles.d";
		if (!avail_set)
			available_dir = "/usr/share/usbeth/profiles.available";
	}
	/* a log reader gone (stderr a pipe, outside systemd): EPIPE, never
	 * a death that leaves every device changed and unrecorded restores
	 * undone
	 */
	signal(SIGPIPE, SIG_IGN);
	if (check)
		return cmd_check();
	if (explain)
		return cmd_explain((const char *const *)&argv[optind],
				   (size_t)(argc - optind), descs, ndescs);
	if (apply)
		return cmd_apply(apply, force);
	return run_daemon();
}
