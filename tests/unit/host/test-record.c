// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The record file (issue 20, item 5): only a regular file of bounded size is
 * read, anything else is damaged with one phrase that says what it is, and
 * nothing blocks. A FIFO or a link planted where the record or its
 * temporary file goes is never opened for writing or followed. A hang is
 * turned into a failure by alarm(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cmocka.h>

#include "kernel.h"
#include "record.h"

#define LINE "rule ib1 4 172.16.34.2/32 1004 1000\n"

struct fixture {
	char dir[64], path[96], tmp[128], other[96];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/ib-hook-test-record.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/netns-c1", f->dir);
	/* the temporary file record_write uses */
	snprintf(f->tmp, sizeof(f->tmp), "%s.%d.tmp", f->path, (int)getpid());
	snprintf(f->other, sizeof(f->other), "%s/other", f->dir);
	alarm(5);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	alarm(0);
	unlink(f->tmp);
	unlink(f->other);
	unlink(f->path);
	rmdir(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void write_text(const char *path, const char *text)
{
	FILE *out = fopen(path, "we");

	assert_non_null(out);
	fputs(text, out);
	assert_int_equal(fclose(out), 0);
}

/* record_load's answer for the file at f->path, and what it said */
static int load(struct fixture *f, char *why, size_t size)
{
	struct ibh_record r = {};
	int e;

	why[0] = '\0';
	e = record_load(f->path, &r, why, size);
	if (e == 0)
		assert_true(r.present);
	record_clear(&r);
	return e;
}

static void test_load_regular(void **state)
{
	struct fixture *f = *state;
	struct ibh_record r = {};
	char why[128];

	assert_int_equal(record_load(f->path, &r, why, sizeof(why)), 0);
	assert_false(r.present);
	write_text(f->path, "# ib-hook record 1\n" LINE);
	assert_int_equal(record_load(f->path, &r, why, sizeof(why)), 0);
	assert_true(r.present);
	assert_int_equal(r.n, 1);
	record_clear(&r);
	write_text(f->path, "# ib-hook record 1\n" LINE "rule ib1\n");
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "has a line that is no record entry (line 3)");
}

/*
 * Witnesses (no netns cookie, issue 38 item 7): read and written back as they
 * were; a record is witnessed only by an address of the same link, address,
 * length and time
 */
static void test_witnesses(void **state)
{
	struct fixture *f = *state;
	struct ibh_addr_entry addrs[3] = {
		{ .ifindex = 1,
		  .addr = { .ip = { AF_INET, 8, { 127, 0, 0, 1 } }, .created = 300 } },
		{ .ifindex = 4,
		  .addr = { .ip = { AF_INET, 16, { 172, 16, 34, 2 } }, .created = 1600 } },
		/* no IFA_CACHEINFO: no witness */
		{ .ifindex = 4, .addr = { .ip = { AF_INET, 16, { 172, 16, 34, 3 } } } },
	};
	const char *text =
		"# ib-hook record 2: what ib-hook installed in this network namespace\n" LINE
		"witness 1 127.0.0.1/8 300\nwitness 4 172.16.34.2/16 1600\n";
	struct ibh_record r = {};
	char why[128], *back;

	write_text(f->path, text);
	assert_int_equal(record_load(f->path, &r, why, sizeof(why)), 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.n_wits, 2);
	back = record_text(&r);
	assert_string_equal(back, text);
	free(back);
	assert_int_equal(record_witnessed(&r, addrs, 3), 1);
	assert_int_equal(record_witnessed(&r, addrs + 2, 1), 0);
	addrs[0].addr.created = 301; /* lo's 127.0.0.1 added again */
	assert_int_equal(record_witnessed(&r, addrs, 1), 0);
	assert_int_equal(record_witnessed(&r, addrs, 2), 1);
	addrs[1].ifindex = 5; /* the same address and time on another link */
	assert_int_equal(record_witnessed(&r, addrs, 2), 0);
	addrs[1].ifindex = 4;
	addrs[1].addr.ip.len = 24; /* another length */
	assert_int_equal(record_witnessed(&r, addrs, 2), 0);

	/* made anew: lo's and those of the links the record names (4), with a time */
	addrs[1].addr.ip.len = 16;
	assert_int_equal(record_witness(&r, addrs, 3), 0);
	assert_int_equal(r.n_wits, 2);
	assert_int_equal(r.wits[0].created, 301);
	assert_int_equal(r.wits[1].ifindex, 4);
	record_clear(&r);

	write_text(f->path, "# ib-hook record 1\nwitness 1 127.0.0.1/8 0\n");
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	write_text(f->path, "# ib-hook record 1\nwitness 1 127.0.0.1/8 300 x\n");
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "has a line that is no record entry (line 2)");
}

static void test_load_not_regular(void **state)
{
	struct fixture *f = *state;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char why[128];
	int fd;

	assert_int_equal(mkdir(f->path, 0755), 0);
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is a directory");
	assert_int_equal(rmdir(f->path), 0);

	assert_int_equal(mkfifo(f->path, 0644), 0);
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is a FIFO");
	assert_int_equal(unlink(f->path), 0);

	/* not followed, so never read for ever */
	assert_int_equal(symlink("/dev/zero", f->path), 0);
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is a symbolic link");
	assert_int_equal(unlink(f->path), 0);

	/* even to a sound record */
	write_text(f->other, LINE);
	assert_int_equal(symlink(f->other, f->path), 0);
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is a symbolic link");
	assert_int_equal(unlink(f->path), 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is a socket");
	close(fd);
	assert_int_equal(unlink(f->path), 0);
}

static void test_load_too_large(void **state)
{
	struct fixture *f = *state;
	char why[128];
	int fd;

	/* the bound itself is fine, one byte more is not */
	write_text(f->path, LINE);
	assert_int_equal(truncate(f->path, RECORD_MAX_BYTES), 0);
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "has a line that is no record entry (line 2)");
	fd = open(f->path, O_WRONLY | O_APPEND | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "\n", 1), 1);
	close(fd);
	assert_int_equal(load(f, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is larger than 16777216 bytes");
}

static void test_write_planted(void **state)
{
	struct fixture *f = *state;
	char buf[64] = "";
	struct stat st;
	FILE *in;

	/* a FIFO where the temporary file goes: no blocking open, the record is written */
	assert_int_equal(mkfifo(f->tmp, 0644), 0);
	assert_int_equal(record_write(f->path, LINE), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(lstat(f->tmp, &st), -1);

	/* a link there: not followed */
	assert_int_equal(symlink(f->other, f->tmp), 0);
	assert_int_equal(record_write(f->path, LINE), 0);
	assert_int_equal(lstat(f->other, &st), -1);

	/* a link or a FIFO as the record: replaced, its target untouched */
	unlink(f->path);
	write_text(f->other, "theirs\n");
	assert_int_equal(symlink(f->other, f->path), 0);
	assert_int_equal(record_write(f->path, LINE), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	in = fopen(f->other, "re");
	assert_non_null(in);
	assert_non_null(fgets(buf, sizeof(buf), in));
	fclose(in);
	assert_string_equal(buf, "theirs\n");
	unlink(f->path);
	assert_int_equal(mkfifo(f->path, 0644), 0);
	assert_int_equal(record_write(f->path, LINE), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISREG(st.st_mode));

	/* what the reader would refuse is not written */
	{
		size_t n = RECORD_MAX_BYTES + 1;
		char *big = malloc(n + 1);

		assert_non_null(big);
		memset(big, '#', n);
		big[n] = '\0';
		assert_int_equal(record_write(f->path, big), -EFBIG);
		free(big);
	}
}

/*
 * The record's index (issue 38 item 10): thousands of entries, added,
 * replaced and forgotten in any order, and entries changed by hand (the
 * index is made again): every one found, none that is not there
 */
static void test_index(void **state)
{
	struct ibh_record r = {};
	struct ibh_rec rec = { .kind = IBH_REC_ROUTE, .ifindex = 3 };
	enum { N = 5000 };

	(void)state;
	strcpy(rec.ifname, "ib0");
	rec.route.dst.family = AF_INET;
	rec.route.dst.len = 24;
	rec.route.table = 1003;
	rec.route.oif = 3;
	for (int i = 0; i < N; i++) {
		rec.route.dst.a[1] = (uint8_t)(i >> 8);
		rec.route.dst.a[2] = (uint8_t)i;
		assert_int_equal(record_add(&r, &rec), 0);
		/* a second add of the same object (for another interface) replaces it */
		strcpy(rec.ifname, "ib9");
		assert_int_equal(record_add(&r, &rec), 0);
		strcpy(rec.ifname, "ib0");
	}
	assert_int_equal(r.n, N);
	for (int i = 0; i < N; i += 2) {
		rec.route.dst.a[1] = (uint8_t)(i >> 8);
		rec.route.dst.a[2] = (uint8_t)i;
		record_forget(&r, &rec);
	}
	assert_int_equal(r.n, N / 2);
	for (int i = 0; i < N; i++) {
		struct ibh_rec *have;

		rec.route.dst.a[1] = (uint8_t)(i >> 8);
		rec.route.dst.a[2] = (uint8_t)i;
		have = record_find(&r, &rec);
		if (i % 2) {
			assert_non_null(have);
			assert_string_equal(have->ifname, "ib9");
			assert_memory_equal(have->route.dst.a, rec.route.dst.a, 4);
		} else {
			assert_null(have);
		}
	}
	/* another table is another object */
	rec.route.dst.a[2] = 1;
	rec.route.table = 1004;
	assert_null(record_find(&r, &rec));
	/* an entry changed by hand, with the count: found as it is now */
	r.recs[0] = rec;
	r.n = 1;
	assert_ptr_equal(record_find(&r, &rec), &r.recs[0]);
	record_clear(&r);
}

#define ROUTE0 "route ib0 3 10.9.0.0/24 3 1003 - 0 0 2 1 via 172.16.0.1\n"
#define ROUTE1 "route ib1 4 172.16.0.0/16 4 1004 172.16.34.2 0 253 2 1\n"

/*
 * The routes of a link are a part of their own: the record's file lists the
 * parts (what their entries are about) and holds the rest; a part is read
 * when asked for, a damaged one as empty. The record of 0.2.0, all in one
 * file, is read whole, its routes to be written in parts.
 */
static void test_parts(void **state)
{
	struct fixture *f = *state;
	struct ibh_record r = {};
	char why[128], part[160], *text, *back;
	size_t n;

	(void)state;
	write_text(f->path, "# ib-hook record 1\n" LINE ROUTE0 ROUTE1);
	assert_int_equal(record_load(f->path, &r, why, sizeof(why)), 0);
	assert_true(r.one_file);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.n_parts, 2);
	assert_true(r.parts[0].loaded && r.parts[0].touched && r.parts[0].grew);
	assert_int_equal(record_write_parts(f->path, &r), 0);
	text = record_text(&r);
	assert_string_equal(text,
			    "# ib-hook record 2: what ib-hook installed in this network namespace\n"
			    "part 3 ib0 1003 inet\npart 4 ib1 1004 inet\n" LINE);
	assert_int_equal(record_write(f->path, text), 0);
	record_clear(&r);

	/* the parts listed, their entries not read */
	assert_int_equal(record_load(f->path, &r, why, sizeof(why)), 0);
	assert_false(r.one_file);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.n_parts, 2);
	assert_false(r.parts[1].loaded);
	assert_int_equal(r.parts[1].n_keys, 1);
	assert_int_equal(r.parts[1].keys[0].route.table, 1004);
	back = record_text(&r);
	assert_string_equal(back, text);
	free(back);
	assert_int_equal(record_load_part(f->path, &r, 1, why, sizeof(why)), 0);
	assert_int_equal(r.n, 2);
	back = record_part_text(&r, 1, &n);
	assert_int_equal(n, 1);
	assert_string_equal(back,
			    "# ib-hook record 2: routes ib-hook installed for one link\n" ROUTE1);
	free(back);
	back = record_text(&r);
	assert_string_equal(back, text);
	free(back);

	/* damaged (a route of another link): read as empty, and written again */
	record_part_path(part, sizeof(part), f->path, 3);
	write_text(part, ROUTE1);
	assert_int_equal(record_load_part(f->path, &r, 0, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "has a line that is no record entry (line 1)");
	assert_int_equal(r.n, 2);
	assert_true(r.parts[0].loaded && r.parts[0].touched);
	assert_int_equal(record_write_parts(f->path, &r), 0);
	assert_int_equal(access(part, F_OK), -1);
	assert_int_equal(r.n_parts, 1);
	record_clear(&r);
	free(text);

	/* every part, for the CNI plugin; then the file and its parts go */
	assert_int_equal(record_load_all(f->path, &r, why, sizeof(why)), 0);
	assert_int_equal(r.n, 2);
	record_clear(&r);
	assert_int_equal(record_remove(f->path), 0);
	record_part_path(part, sizeof(part), f->path, 4);
	assert_int_equal(access(part, F_OK), -1);
	assert_int_equal(access(f->path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_load_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_witnesses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_load_too_large, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_planted, setup, teardown),
		cmocka_unit_test(test_index),
		cmocka_unit_test_setup_teardown(test_parts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
