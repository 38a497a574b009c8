// SPDX-License-Identifier: MIT
/*
 * test-framelog.c: the frame-log readers (src/frames/framelog.c) on the
 * fixtures under tests/fixtures/framelogs/: real MangoHud 0.6.8 logs made
 * on this machine, logs written from the documented formats of MangoHud
 * 0.6.9/0.7/0.8 and PresentMon v1/v2/current, plain dumps, and garbage.
 * Every error path is checked with its whole message.
 */
#include <errno.h>
#include <stdint.h>

#include "frames/framelog.h"
#include "frames/framelog_int.h"	/* num_parse, next_row: tested directly */
#include "t.h"

/* The 40 frame times every written fixture holds (ms). */
static double want_ft(size_t i)
{
	if (i == 17)
		return 120.5;
	if (i == 31)
		return 45.25;
	return 16.6667 + (double)(i % 5) * 0.25;
}

/* The path of fixture NAME under framelogs/. */
static const char *fixture(const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "framelogs/%s", name);
	return t_fixture(rel);
}

static struct frames *read_ok(const char *name, enum framelog_format fmt, struct strbuf *notes)
{
	struct frames *f = NULL;
	int r = framelog_read(fixture(name), fmt, &f, notes);

	if (r != 0) {
		T_FAIL("%s: framelog_read = %d: %s", name, r, notes->buf);
		return NULL;
	}
	return f;
}

/* Frames end where the next starts: t_s[i] - t_s[i-1] == ft_ms[i] / 1000. */
static void check_contiguous(const struct frames *f, double tol_s)
{
	size_t bad = 0;

	for (size_t i = 1; i < f->n; i++)
		if (fabs(f->t_s[i] - f->t_s[i - 1] - f->ft_ms[i] / 1000.0) > tol_s)
			bad++;
	CHECK_INT(bad, 0);
}

static void check_written(const char *name, enum framelog_format fmt, const char *format,
			  const char *note_part)
{
	struct strbuf notes = STRBUF_INIT;
	struct frames *f = read_ok(name, fmt, &notes);
	size_t bad = 0;

	if (!f)
		goto out;
	CHECK_STR(f->format, format);
	CHECK_INT(f->n, 40);
	for (size_t i = 0; i < f->n && i < 40; i++)
		if (fabs(f->ft_ms[i] - want_ft(i)) > 1e-9)
			bad++;
	CHECK_INT(bad, 0);
	check_contiguous(f, 1e-6);
	for (size_t i = 1; i < f->n; i++)
		CHECK(f->t_s[i] >= f->t_s[i - 1]);
	if (note_part && !strstr(notes.buf, note_part))
		T_FAIL("%s: notes lack '%s': %s", name, note_part, notes.buf);
	frames_free(f);
out:
	sb_release(&notes);
}

static void test_written_fixtures(void)
{
	check_written("mangohud-0.6.9.csv", FRAMELOG_AUTO, "mangohud-0.6.9",
		      "mangohud version assumed 0.6.9 from float frametime (ms) and 12 columns");
	check_written("mangohud-0.7.0.csv", FRAMELOG_AUTO, "mangohud-0.7",
		      "mangohud version assumed 0.7 or later");
	check_written("mangohud-0.8.2-versioned.csv", FRAMELOG_AUTO, "mangohud-0.8.2", NULL);
	check_written("mangohud-0.8.2-versioned.csv", FRAMELOG_MANGOHUD, "mangohud-0.8.2", NULL);
	check_written("presentmon-v1.csv", FRAMELOG_AUTO, "presentmon-v1",
		      "2 swap chains in the log; kept 'game.exe,4242,0x000001D3A8F0C2B0' "
		      "(40 frames), left out 4 rows of the others");
	check_written("presentmon-v2.csv", FRAMELOG_AUTO, "presentmon-v2",
		      "frame times from column FrameTime");
	check_written("presentmon-current.csv", FRAMELOG_PRESENTMON, "presentmon",
		      "frame times from column MsBetweenPresents");
	/* RFC 4180 quoting: a name with a comma and with "", a row quoted
	 * field by field; the rows of a chain are one chain however quoted */
	check_written("presentmon-quoted.csv", FRAMELOG_AUTO, "presentmon-v1",
		      "2 swap chains in the log; kept 'My, Game.exe,4242,0x000001D3A8F0C2B0' "
		      "(40 frames), left out 4 rows of the others");
	check_written("plain.txt", FRAMELOG_AUTO, "plain", NULL);
	check_written("plain.txt", FRAMELOG_PLAIN, "plain", NULL);
}

/* MangoHud's elapsed (ns since logging started) gives the frame ends. */
static void test_mangohud_elapsed(void)
{
	struct strbuf notes = STRBUF_INIT;
	struct frames *f = read_ok("mangohud-0.8.2-versioned.csv", FRAMELOG_AUTO, &notes);

	if (!f)
		goto out;
	/* first row: 300 ms + 16.6667 ms after logging started */
	CHECK_NEAR(f->t_s[0], 0.3166667, 1e-9);
	CHECK_NEAR(f->t_s[39], 0.3 + 0.8183346, 1e-6);
	CHECK_STR(notes.buf, "");
	frames_free(f);
out:
	sb_release(&notes);
}

/* The real logs MangoHud 0.6.8 wrote on this machine (glxgears, xvfb). */
static void test_mangohud_068_real(void)
{
	struct strbuf notes = STRBUF_INIT;
	struct frames *f = read_ok("mangohud-0.6.8-perframe.csv", FRAMELOG_AUTO, &notes);

	if (f) {
		CHECK_STR(f->format, "mangohud-0.6.8");
		CHECK_INT(f->n, 1147);
		CHECK_NEAR(f->ft_ms[0], 54.432, 1e-12);	/* "18.3715,54432,..." */
		CHECK_NEAR(f->ft_ms[1], 6.997, 1e-12);
		CHECK_NEAR(f->t_s[0], 0.315823119, 1e-12);	/* elapsed 315823119 ns */
		CHECK(strstr(notes.buf, "assumed 0.6.8 from integer frametime (us)\n") != NULL);
		CHECK(strstr(notes.buf, "samples") == NULL);
		/* per-frame rows: consecutive elapsed stamps differ by the frame time
		 * (within 1 ms: MangoHud stamps a row when it logs it, not at the present) */
		check_contiguous(f, 0.001);
		frames_free(f);
	}
	sb_reset(&notes);
	f = read_ok("mangohud-0.6.8-interval100.csv", FRAMELOG_AUTO, &notes);
	if (f) {
		CHECK_STR(f->format, "mangohud-0.6.8");
		CHECK_INT(f->n, 77);
		CHECK_NEAR(f->ft_ms[0], 469155.820, 1e-9);	/* a real first-row outlier */
		CHECK(strstr(notes.buf, "rows are samples (one every 100 ms on average), not "
					"every frame") != NULL);
		frames_free(f);
	}
	sb_release(&notes);
}

/* Parses TEXT, checks its format string, frame 0 and a note. */
static void check_version(const char *text, const char *format, double ft0, const char *note)
{
	struct strbuf notes = STRBUF_INIT;
	struct frames *f = NULL;

	CHECK_INT(framelog_parse(text, strlen(text), "v.csv", FRAMELOG_AUTO, &f, &notes), 0);
	if (f) {
		CHECK_STR(f->format, format);
		CHECK_NEAR(f->ft_ms[0], ft0, 1e-12);
		if (note)
			CHECK_STR(notes.buf, note);
	}
	frames_free(f);
	sb_release(&notes);
}

/* How the MangoHud version and the frametime unit are found. */
static void test_mangohud_versions(void)
{
	const char *sys = "os,cpu,gpu,ram,kernel,driver,cpuscheduler\nDebian,AMD,,1,6.1,Mesa,\n";
	char buf[1024];

	/* log_versioning names the version; 0.6.8 and before log microseconds */
	snprintf(buf, sizeof(buf),
		 "v1\nv0.6.8\n---------------------SYSTEM INFO---------------------\n%s"
		 "--------------------FRAME METRICS--------------------\n"
		 "fps,frametime,elapsed\n100,10000,10000000\n50,20000,30000000\n", sys);
	check_version(buf, "mangohud-0.6.8", 10, "");
	/* 0.6.9 and later log milliseconds, whatever the digits look like */
	snprintf(buf, sizeof(buf), "v1\n0.7.2-1-gabcdef\n%sfps,frametime,elapsed\n"
		 "62.5,16,16000000\n", sys);
	check_version(buf, "mangohud-0.7.2", 16, "");
	/* a version line that disagrees with the numbers wins, with a note */
	snprintf(buf, sizeof(buf), "v1\n0.6.5\n%sfps,frametime,elapsed\n"
		 "62.5,16.0,16000000\n", sys);
	check_version(buf, "mangohud-0.6.5", 0.016,
		      "'v.csv': frametime looks like ms but the log says version 0.6.5: us "
		      "assumed\n");
	/* no version line, whole numbers, but fps * frametime says ms */
	snprintf(buf, sizeof(buf), "%sfps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,"
		 "gpu_core_clock,gpu_mem_clock,gpu_vram_used,gpu_power,ram_used,swap_used,"
		 "process_rss,elapsed\n62.5,16,1,1,1,1,1,1,1,1,1,0,1,16000000\n", sys);
	check_version(buf, "mangohud-0.7", 16,
		      "'v.csv': mangohud version assumed 0.7 or later: frametime holds whole "
		      "numbers but fps says they are ms\n");
	/* no elapsed column: frame ends from the sum */
	snprintf(buf, sizeof(buf), "%sfps,frametime\n100,10000\n", sys);
	check_version(buf, "mangohud-0.6.8", 10,
		      "'v.csv': mangohud version assumed 0.6.8 from integer frametime (us)\n"
		      "'v.csv': no elapsed column: frame ends from the running sum of frame "
		      "times\n");
	/* elapsed going backwards: the sum again, and the line named */
	snprintf(buf, sizeof(buf), "%sfps,frametime,elapsed\n62.5,16.0,32000000\n"
		 "62.5,16.0,16000000\n", sys);
	check_version(buf, "mangohud-0.6.9", 16,
		      "'v.csv': mangohud version assumed 0.6.9 from float frametime (ms) and 3 "
		      "columns\n'v.csv': line 5: elapsed decreases: frame ends from the running "
		      "sum of frame times\n");
}

static void test_cut_short(void)
{
	struct strbuf notes = STRBUF_INIT;
	struct frames *f = read_ok("mangohud-cut-short.csv", FRAMELOG_AUTO, &notes);

	if (f) {
		CHECK_INT(f->n, 2);
		CHECK(strstr(notes.buf, "line 6: last line cut short (2 of 12 fields, no "
					"newline): left out\n") != NULL);
		frames_free(f);
	}
	sb_release(&notes);
}

/*
 * Parses TEXT as "x.csv" and checks it fails with exactly MSG. The text is
 * copied into a buffer of its exact length, without a NUL, so that ASan
 * catches any read past the end (mapped files have no NUL either).
 */
static void check_err(const char *text, enum framelog_format fmt, const char *msg)
{
	struct strbuf sb = STRBUF_INIT;
	struct frames *f = (struct frames *)&sb;	/* must stay untouched */
	size_t len = strlen(text);
	char *copy = malloc(len ? len : 1);
	int r;

	memcpy(copy, text, len);
	r = framelog_parse(copy, len, "x.csv", fmt, &f, &sb);
	CHECK_INT(r, -EINVAL);
	CHECK(f == (struct frames *)&sb);
	CHECK_STR(sb.buf, msg);
	sb_release(&sb);
	free(copy);
}

/* Reads fixture NAME and checks it fails with MSG after "'<path>'". */
static void check_file_err(const char *name, const char *msg)
{
	struct strbuf sb = STRBUF_INIT, want = STRBUF_INIT;
	struct frames *f = NULL;
	const char *path = fixture(name);
	int r = framelog_read(path, FRAMELOG_AUTO, &f, &sb);

	CHECK_INT(r, -EINVAL);
	CHECK(f == NULL);
	sb_addf(&want, "'%s'%s", path, msg);
	CHECK_STR(sb.buf, want.buf);
	sb_release(&sb);
	sb_release(&want);
}

static void test_errors(void)
{
	const char *mh = "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
			 "Debian,AMD,,1,6.1,Mesa,\n"
			 "fps,frametime,cpu_load,elapsed\n";
	const char *pm = "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,"
			 "PresentFlags,Dropped,TimeInSeconds,msInPresentAPI,msBetweenPresents\n";
	char buf[512];

	check_file_err("empty.csv", ": empty file: expected a frame log");
	check_file_err("garbage-text.csv",
		       " line 1: unknown frame log: expected a MangoHud CSV (os,cpu,... or "
		       "fps,frametime,...), a PresentMon CSV header (...,MsBetweenPresents,...) "
		       "or a frame time in ms, got 'name,score'");
	check_file_err("mangohud-header-only.csv", ": no frames after the header on line 3");
	check_file_err("mangohud-bad-frametime.csv",
		       " line 5: expected a frame time in column 'frametime', got 'abc'");
	check_file_err("presentmon-negative.csv",
		       " line 3: expected a frame time in ms in column 'msBetweenPresents' "
		       "(not negative), got '-3.5'");
	check_file_err("plain-nan.txt", " line 4: expected a frame time in ms, got 'nan'");

	/* garbage bytes: an error, never a crash, unprintables shown as '?' */
	{
		struct strbuf sb = STRBUF_INIT;
		struct frames *f = NULL;

		CHECK_INT(framelog_read(fixture("garbage-random.bin"), FRAMELOG_AUTO, &f, &sb),
			  -EINVAL);
		CHECK(strstr(sb.buf, "garbage-random.bin' line ") != NULL);
		for (size_t i = 0; i < sb.len; i++)
			CHECK((unsigned char)sb.buf[i] >= 0x20 && (unsigned char)sb.buf[i] < 0x7f);
		sb_release(&sb);
		CHECK_INT(framelog_read(fixture("garbage-random.bin"), FRAMELOG_MANGOHUD, &f,
					NULL), -EINVAL);
		CHECK_INT(framelog_read(fixture("garbage-random.bin"), FRAMELOG_PRESENTMON, &f,
					NULL), -EINVAL);
		CHECK_INT(framelog_read(fixture("garbage-random.bin"), FRAMELOG_PLAIN, &f,
					NULL), -EINVAL);
	}

	check_err("", FRAMELOG_AUTO, "'x.csv': empty file: expected a frame log");
	check_err("", FRAMELOG_PLAIN, "'x.csv': empty file: expected a frame log");
	check_err("", FRAMELOG_MANGOHUD, "'x.csv': empty file: expected a frame log");
	check_err("", FRAMELOG_PRESENTMON, "'x.csv': empty file: expected a frame log");
	check_err("# only a comment\n\n", FRAMELOG_AUTO,
		  "'x.csv': no frames: only comments and blank lines");
	check_err("# only a comment\n", FRAMELOG_PLAIN,
		  "'x.csv': no frames: only comments and blank lines");
	check_err("16.7\nabc\n", FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms, got 'abc'");
	check_err("16.7\n-1\n", FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms (not negative), got '-1'");
	check_err("16.7\ninf\n", FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms, got 'inf'");
	check_err("16.7\n1e999\n", FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms, got '1e999'");
	check_err("16.7\n12,5\n", FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms, got '12,5'");
	check_err("0\n0\n", FRAMELOG_AUTO, "'x.csv': no frames: every frame time is 0");
	check_err("16.7\n1.2.3\n", FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms, got '1.2.3'");
	check_err("16.7\nx123456789012345678901234567890123456789012345\n", FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms, got "
		  "'x123456789012345678901234567890123456789...'");

	/* MangoHud */
	check_err(mh, FRAMELOG_AUTO, "'x.csv': no frames after the header on line 3");
	snprintf(buf, sizeof(buf), "%s1,2,3\n", mh);
	check_err(buf, FRAMELOG_AUTO,
		  "'x.csv' line 4: expected 4 fields as in the header on line 3, got 3");
	snprintf(buf, sizeof(buf), "%s1,2,3,4,5\n", mh);
	check_err(buf, FRAMELOG_AUTO,
		  "'x.csv' line 4: expected 4 fields as in the header on line 3, got 5");
	snprintf(buf, sizeof(buf), "%s100,10000,1,5\n\n100,10000,1,6\n", mh);
	check_err(buf, FRAMELOG_AUTO,
		  "'x.csv' line 5: expected a row of 4 fields, got an empty line");
	snprintf(buf, sizeof(buf), "%s100,10000,1,x5\n", mh);
	check_err(buf, FRAMELOG_AUTO,
		  "'x.csv' line 4: expected ns since logging started in column 'elapsed', got "
		  "'x5'");
	snprintf(buf, sizeof(buf), "%s100,-10000,1,5\n", mh);
	check_err(buf, FRAMELOG_AUTO,
		  "'x.csv' line 4: expected a frame time in column 'frametime' (not negative), "
		  "got '-10000'");
	check_err("v1\n0.7.2\nsomething else\n", FRAMELOG_AUTO,
		  "'x.csv' line 3: expected a MangoHud log line (v1, a version, ---, "
		  "os,cpu,... or the frame header fps,frametime,...), got 'something else'");
	check_err("os,cpu,gpu\nvalues\n", FRAMELOG_MANGOHUD,
		  "'x.csv': no MangoHud frame header (fps,frametime,...) in the first 2 lines");
	check_err("16.7\n", FRAMELOG_MANGOHUD,	/* a version line, then nothing */
		  "'x.csv': no MangoHud frame header (fps,frametime,...) in the first 1 lines");
	check_err("16.7\n16.7\n", FRAMELOG_MANGOHUD,
		  "'x.csv' line 2: expected a MangoHud log line (v1, a version, ---, "
		  "os,cpu,... or the frame header fps,frametime,...), got '16.7'");

	/* PresentMon */
	check_err(pm, FRAMELOG_AUTO, "'x.csv': no frames after the header on line 1");
	check_err("Application,ProcessID,Foo\na,1,2\n", FRAMELOG_PRESENTMON,
		  "'x.csv' line 1: expected a PresentMon CSV header with msBetweenPresents (v1), "
		  "FrameTime (v2) or MsBetweenPresents, got 'Application,ProcessID,Foo'");
	snprintf(buf, sizeof(buf), "%sg.exe,1,0x1,DXGI,1,0,0,1.0,0.2,abc\n", pm);
	check_err(buf, FRAMELOG_AUTO,
		  "'x.csv' line 2: expected a frame time in ms in column 'msBetweenPresents', "
		  "got 'abc'");
	snprintf(buf, sizeof(buf), "%sg.exe,1,0x1,DXGI,1,0,0,1.0\n", pm);
	check_err(buf, FRAMELOG_AUTO,
		  "'x.csv' line 2: expected 10 fields as in the header on line 1, got 8");
}

static void test_plain_details(void)
{
	const char *text = "\xef\xbb\xbf# dump\r\n 10 \r\n20.5 # comment\r\n\r\n0\r\n1e1\r\n+5";
	struct strbuf notes = STRBUF_INIT;
	struct frames *f = NULL;

	CHECK_INT(framelog_parse(text, strlen(text), "d.txt", FRAMELOG_AUTO, &f, &notes), 0);
	if (!f)
		return;
	CHECK_STR(f->format, "plain");
	CHECK_INT(f->n, 4);
	CHECK_NEAR(f->ft_ms[0], 10, 0);
	CHECK_NEAR(f->ft_ms[1], 20.5, 0);
	CHECK_NEAR(f->ft_ms[2], 10, 0);
	CHECK_NEAR(f->ft_ms[3], 5, 0);
	CHECK_NEAR(f->t_s[3], 0.0455, 1e-15);
	CHECK_STR(notes.buf, "'d.txt': 1 frames with a frame time of 0 left out (the first on "
			     "line 5)\n");
	frames_free(f);
	sb_release(&notes);
}

/* Decimal reading is exact: it agrees with strtod on many shapes. */
static void test_numbers_exact(void)
{
	static const char *const nums[] = {
		"16.6667", "0.1", "6.99712", "469155820", "1e-3", "12345678901234567",
		"0.000000000000000000000001", "123456.78901234567890", "7E2", "3.", ".5",
	};
	size_t bad = 0;

	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		struct frames *f = NULL;

		if (framelog_parse(nums[i], strlen(nums[i]), "n", FRAMELOG_PLAIN, &f, NULL) != 0 ||
		    f->ft_ms[0] != strtod(nums[i], NULL)) {
			T_FAIL("'%s' read as %.17g", nums[i], f ? f->ft_ms[0] : -1.0);
			bad++;
		}
		frames_free(f);
	}
	CHECK_INT(bad, 0);
}

/* A 64-bit LCG (Knuth's MMIX constants): the same numbers on every run. */
static uint64_t lcg(uint64_t *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return *x >> 11;
}

/*
 * num_parse on TEXT against strtod: the same bits (so -0 is -0) when TEXT
 * is a number of num_parse's grammar with a finite value, else -1 from both
 * sides. Returns whether they agree; says how when not.
 */
static bool num_agrees(const char *text, bool want_ok)
{
	double got = 0, want = strtod(text, NULL);
	int r = num_parse((struct span){ text, strlen(text) }, &got, NULL);

	if (!want_ok || !isfinite(want)) {
		if (r == 0)
			T_FAIL("'%s' read as %.17g, expected a refusal", text, got);
		return r != 0;
	}
	if (r != 0 || memcmp(&got, &want, sizeof(got)) != 0) {
		T_FAIL("'%s' read as %.17g (r %d), strtod says %.17g", text, got, r, want);
		return false;
	}
	return true;
}

/* V printed in shape K of SHAPES: MangoHud's and printf's other ways. */
#define SHAPES 10
static void shape(char *buf, size_t len, int k, double v)
{
	switch (k) {
	case 0: snprintf(buf, len, "%.1f", v); break;
	case 1: snprintf(buf, len, "%.3f", v); break;
	case 2: snprintf(buf, len, "%g", v); break;
	case 3: snprintf(buf, len, "%.17g", v); break;
	case 4: snprintf(buf, len, "%.15g", v); break;
	case 5: snprintf(buf, len, "%.16g", v); break;
	case 6: snprintf(buf, len, "%e", v); break;
	case 7: snprintf(buf, len, "%.20f", v); break;
	case 8: snprintf(buf, len, "%+.6f", v); break;
	default: snprintf(buf, len, "%.3e", v); break;
	}
}

/*
 * num_parse, the reader of every number in every frame log, gives exactly
 * strtod's double: on what MangoHud writes (%.1f, %.3f, %g, whole ns), on
 * 17 significant digits, exponents, signs, leading and trailing zeros, the
 * edges of its exact path (15 and 16 digits, 1e22 and 1e23, 2^53 + 1) and
 * on 50,000 random values in each of ten shapes; what is not a number is refused.
 */
static void test_num_parse_strtod(void)
{
	static const char *const edges[] = {
		"0", "-0", "+0", "0.0", "-0.0", "00000", "0.000000000000000000000",
		"7.459", "+7.459", "-7.459", "134.1", "0.1", "0.2", "0.3", "1.2", "4.1",
		"149830510", "3600000000000", "18446744073709551615", "18446744073709551616",
		"99999999999999999999999", "123456789012345", "1234567890123456",
		"999999999999999", "9999999999999999", "9007199254740992", "9007199254740993",
		"0.123456789012345", "0.1234567890123456", "1.00000000000000011102230246251565",
		"000000000000000001.5", "0007.5", "7.500000000000000000000", "3.", ".5", "-.5",
		"+3.", "1e22", "1e23", "1e-22", "1e-23", "7E2", "7e+2", "7e-2", "-7e-2",
		"1.5e308", "1.7976931348623157e308", "2.2250738585072014e-308", "4.9e-324",
		"2.4703282292062327e-324", "1e-400", "123456.78901234567890",
		"0.000000000000000000000001", "16.6667", "6.99712", "469155820", "1e-3",
		"12345678901234567", "1e0000000000000000000000003", "5e-0000000000001",
		"0.30000000000000004", "8.988465674311579e307",
	};
	static const char *const refused[] = {
		"", "+", "-", ".", "+.", "e5", "1e", "1e+", "1e-", "nan", "inf", "-inf",
		"1.2.3", "1,2", " 1", "1 ", "0x10", "1e400", "-1e400", "1f", "--1", "+-1", "1..",
	};
	uint64_t x = 1;
	size_t bad = 0;

	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		bad += !num_agrees(edges[i], true);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		bad += !num_agrees(refused[i], false);
	for (int k = 0; k < SHAPES && bad < 20; k++) {
		for (int i = 0; i < 50000 && bad < 20; i++) {
			char text[512];
			uint64_t r = lcg(&x);
			/* frame times near 7 ms, fps, and values of every size */
			double v = i % 3 == 0   ? 6.944 + (double)(r % 100000) / 10000.0
				   : i % 3 == 1 ? 1000.0 / (1.0 + (double)(r % 1000000) / 1000.0)
						: ldexp((double)(r % (1ull << 52)) + 1.0,
							(int)(lcg(&x) % 200) - 150);

			if (i % 7 == 0)
				v = -v;
			shape(text, sizeof(text), k, v);
			bad += !num_agrees(text, strlen(text) < 80);
		}
	}
	for (int i = 0; i < 50000 && bad < 20; i++) {
		char text[32];

		/* MangoHud's elapsed: whole ns, up to days */
		snprintf(text, sizeof(text), "%llu", (unsigned long long)(lcg(&x) % 400000000000000ull));
		bad += !num_agrees(text, true);
	}
	CHECK_INT(bad, 0);
}

/*
 * next_row gives what next_line and split_fields give, line by line, on
 * random text of commas, quotes, CRs, newlines and letters at every length
 * and alignment (its 8-byte scan and its byte scan meet at every offset).
 */
static void test_next_row_same(void)
{
	static const char alphabet[] = "a,,,,1\n\n\r\"";
	uint64_t x = 7;
	size_t bad = 0;

	for (int round = 0; round < 20000 && bad < 10; round++) {
		char buf[200];
		size_t len = (size_t)(lcg(&x) % sizeof(buf));
		int quotes = round % 4 == 0;
		struct cursor a = { buf, buf + len, 0, false, NULL, buf, buf, NULL, NULL };
		struct cursor b = a;
		const int want[3] = { (int)(lcg(&x) % 4), (int)(lcg(&x) % 6) - 1,
				      (int)(lcg(&x) % 20) - 1 };

		for (size_t i = 0; i < len; i++) {
			buf[i] = alphabet[lcg(&x) % (sizeof(alphabet) - 1)];
			if (buf[i] == '"' && !quotes)
				buf[i] = 'b';
		}
		for (;;) {
			struct span la = { 0 }, lb = { 0 };
			struct span fa[3] = { { 0 } }, fb[3] = { { 0 } };
			int na = -1, nb = -1;
			bool ga = next_line(&a, &la), gb = next_row(&b, &lb, want, fb, &nb);

			if (ga)
				na = split_fields(la, want, fa);
			if (ga != gb || (ga && (la.s != lb.s || la.len != lb.len || na != nb ||
						memcmp(fa, fb, sizeof(fa)) != 0)) ||
			    a.p != b.p || a.lineno != b.lineno || a.last_had_nl != b.last_had_nl) {
				T_FAIL("round %d line %zu: next_row differs from next_line + "
				       "split_fields ('%.*s')", round, a.lineno, (int)la.len,
				       la.s ? la.s : "");
				bad++;
				break;
			}
			if (!ga)
				break;
		}
	}
	CHECK_INT(bad, 0);
}

/* Valid logs that end without a newline, in buffers without a NUL. */
static void test_no_trailing_newline(void)
{
	static const char *const texts[] = {
		"16.7\n17.2",
		"16.7 # c",
		"fps,frametime,elapsed\n60,16.7,16700000\n59,16.9,33600000",
		"Application,ProcessID,SwapChainAddress,msBetweenPresents\ng,1,0x1,16.7\ng,1,0x1,17",
		"Application,ProcessID,SwapChainAddress,FrameTime\ng,1,0x1,16.7\nh,2,0x2,1e1",
	};
	static const size_t want_n[] = { 2, 1, 2, 2, 1 };

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		size_t len = strlen(texts[i]);
		char *copy = malloc(len);
		struct frames *f = NULL;

		memcpy(copy, texts[i], len);
		CHECK_INT(framelog_parse(copy, len, "t", FRAMELOG_AUTO, &f, NULL), 0);
		if (f)
			CHECK_INT(f->n, want_n[i]);
		frames_free(f);
		free(copy);
	}
}

static void test_format_names(void)
{
	enum framelog_format fmt = FRAMELOG_PLAIN;

	CHECK_INT(framelog_format_parse("auto", &fmt), 0);
	CHECK_INT(fmt, FRAMELOG_AUTO);
	CHECK_INT(framelog_format_parse("mangohud", &fmt), 0);
	CHECK_INT(fmt, FRAMELOG_MANGOHUD);
	CHECK_INT(framelog_format_parse("presentmon", &fmt), 0);
	CHECK_INT(fmt, FRAMELOG_PRESENTMON);
	CHECK_INT(framelog_format_parse("plain", &fmt), 0);
	CHECK_INT(fmt, FRAMELOG_PLAIN);
	CHECK_INT(framelog_format_parse("MangoHud", &fmt), -EINVAL);
	CHECK_INT(fmt, FRAMELOG_PLAIN);
	CHECK_INT(framelog_format_parse(NULL, &fmt), -EINVAL);
	CHECK_STR(framelog_format_name(FRAMELOG_PRESENTMON), "presentmon");
	CHECK_STR(framelog_format_name((enum framelog_format)99), "unknown");
}

/* "-" reads standard input (a pipe or a terminal is not mapped). */
static void test_stdin(void)
{
	struct frames *f = NULL;

	if (!freopen(fixture("plain.txt"), "r", stdin)) {
		T_FAIL("cannot reopen stdin");
		return;
	}
	CHECK_INT(framelog_read("-", FRAMELOG_AUTO, &f, NULL), 0);
	if (f) {
		CHECK_STR(f->format, "plain");
		CHECK_INT(f->n, 40);
	}
	frames_free(f);
}

static void test_missing_file(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct frames *f = NULL;

	CHECK_INT(framelog_read("/nonexistent/x.csv", FRAMELOG_AUTO, &f, &sb), -ENOENT);
	CHECK(f == NULL);
	CHECK_STR(sb.buf, "cannot open '/nonexistent/x.csv': No such file or directory");
	sb_release(&sb);
}

/* A larger log parses in one piece (the benchmark times it; here: right). */
static void test_large(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct frames *f = NULL;
	const size_t n = 100000;

	sb_adds(&sb, "fps,frametime,cpu_load,gpu_load,elapsed\n");
	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "144.0,6.944,12.5,80,%zu\n", (i + 1) * 6944000);
	CHECK_INT(framelog_parse(sb.buf, sb.len, "big.csv", FRAMELOG_AUTO, &f, NULL), 0);
	if (f) {
		CHECK_INT(f->n, n);
		CHECK_STR(f->format, "mangohud-0.6.9");
		CHECK_NEAR(f->t_s[n - 1], (double)n * 0.006944, 1e-9);
		frames_free(f);
	}
	sb_release(&sb);
}

/*
 * TEXT (LEN bytes) read from a file by framelog_read (256 KB blocks read as
 * the parse goes, dropped 8 MB behind) gives exactly what framelog_parse
 * gives on the buffer: the return, the frames and every word of the message.
 */
static void check_read_same(const char *what, const char *text, size_t len)
{
	const char *path = "test-framelog-blocks.log";
	struct strbuf ma = STRBUF_INIT, mb = STRBUF_INIT;
	struct frames *fa = NULL, *fb = NULL;
	FILE *fp = fopen(path, "w");
	int ra, rb;

	if (!fp || fwrite(text, 1, len, fp) != len || fclose(fp) != 0) {
		T_FAIL("cannot write %s", path);
		return;
	}
	ra = framelog_parse(text, len, path, FRAMELOG_AUTO, &fa, &ma);
	rb = framelog_read(path, FRAMELOG_AUTO, &fb, &mb);
	if (ra != rb || strcmp(ma.buf ? ma.buf : "", mb.buf ? mb.buf : "") != 0 ||
	    (fa && (fa->n != fb->n || strcmp(fa->format, fb->format) != 0 ||
		    memcmp(fa->ft_ms, fb->ft_ms, fa->n * sizeof(double)) != 0 ||
		    memcmp(fa->t_s, fb->t_s, fa->n * sizeof(double)) != 0)))
		T_FAIL("%s: read %d '%s' (%zu frames), parsed %d '%s' (%zu frames)", what, rb,
		       mb.buf ? mb.buf : "", fb ? fb->n : 0, ra, ma.buf ? ma.buf : "",
		       fa ? fa->n : 0);
	t_checks++;
	frames_free(fa);
	frames_free(fb);
	sb_release(&ma);
	sb_release(&mb);
	remove(path);
}

/*
 * Files read in blocks: rows across every block boundary (CRLF ones too),
 * a 700 KB line (longer than a block) that is an error, a last line cut
 * short, a 9 MB plain log (pages dropped behind the parse) and one whose
 * first number comes after 300 KB of comments (detection reads on), and a
 * sysfs file shorter than the size it gives.
 */
static void test_read_in_blocks(void)
{
	struct strbuf sb = STRBUF_INIT;
	size_t mid;

	sb_adds(&sb, "os,cpu,gpu,ram,kernel,driver,cpuscheduler\r\nDebian,c,g,1,6,M,\r\n"
		     "fps,frametime,cpu_load,gpu_load,elapsed\r\n");
	for (size_t i = 0; i < 60000; i++)
		sb_addf(&sb, "%zu.5,%zu.%03zu,12.5,80,%zu\r\n", 100 + i % 50, 5 + i % 9,
			i % 1000, (i + 1) * 6944000);
	check_read_same("mangohud crlf", sb.buf, sb.len);
	mid = sb.len / 2;
	check_read_same("mangohud cut short", sb.buf, sb.len - 7);
	{
		struct strbuf bad = STRBUF_INIT;

		sb_add(&bad, sb.buf, mid);
		for (size_t i = 0; i < 700000; i++)
			sb_addc(&bad, (char)('a' + i % 26));
		sb_add(&bad, sb.buf + mid, sb.len - mid);
		check_read_same("mangohud 700 KB line", bad.buf, bad.len);
		sb_release(&bad);
	}
	sb_reset(&sb);
	for (size_t i = 0; i < 1500000; i++)
		sb_addf(&sb, i % 100 == 0 ? "# comment %zu\n" : "%zu.25\n", 6 + i % 5);
	check_read_same("plain 9 MB", sb.buf, sb.len);
	sb_reset(&sb);
	for (size_t i = 0; i < 30000; i++)
		sb_adds(&sb, "# a comment line\n");
	sb_adds(&sb, "16.7\n17.1\n");
	check_read_same("plain after comments", sb.buf, sb.len);
	sb_release(&sb);

	/* a file shorter than its size (sysfs says 4096 bytes): read as far
	 * as it goes, as the stream it is, not an error of its own */
	{
		const char *sys = "/sys/devices/system/cpu/online";
		struct strbuf ma = STRBUF_INIT, mb = STRBUF_INIT, text = STRBUF_INIT;
		struct frames *fa = NULL, *fb = NULL;
		FILE *fp = fopen(sys, "r");
		int ra, rb;

		if (!fp)
			return;	/* no sysfs here: the rest was checked */
		sb_grow(&text, 4096);
		text.len = fread(text.buf, 1, 4095, fp);
		text.buf[text.len] = '\0';
		fclose(fp);
		ra = framelog_parse(text.buf, text.len, sys, FRAMELOG_AUTO, &fa, &ma);
		rb = framelog_read(sys, FRAMELOG_AUTO, &fb, &mb);
		CHECK_INT(rb, ra);
		CHECK_STR(mb.buf, ma.buf);
		frames_free(fa);
		frames_free(fb);
		sb_release(&ma);
		sb_release(&mb);
		sb_release(&text);
	}
}

/*
 * A PresentMon log of over 8 MB read from a file: framelog_read maps it and
 * drops pages it has read past; the first row's swap chain (dwm.exe) is not
 * the biggest, so a second pass reads released pages again.
 */
static void test_presentmon_big_file(void)
{
	const char *path = "test-framelog-big.csv";
	struct strbuf notes = STRBUF_INIT;
	struct frames *f = NULL;
	FILE *fp = fopen(path, "w");
	const size_t n = 200000;
	size_t bad = 0;

	if (!fp) {
		T_FAIL("cannot write %s", path);
		return;
	}
	fputs("Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,"
	      "Dropped,TimeInSeconds,msInPresentAPI,msBetweenPresents\n", fp);
	for (size_t i = 0; i < n; i++) {
		if (i % 1000 == 0)
			fprintf(fp, "dwm.exe,1180,0x0000024C8E4A1030,Other,0,0,0,%zu.5,0.1,16.0\n",
				i);
		fprintf(fp, "game.exe,4242,0x000001D3A8F0C2B0,DXGI,1,0,0,%zu.25,0.21373,%zu.%03zu\n",
			i, 5 + i % 7, i % 1000);
	}
	fclose(fp);
	CHECK_INT(framelog_read(path, FRAMELOG_AUTO, &f, &notes), 0);
	if (f) {
		CHECK_STR(f->format, "presentmon-v1");
		CHECK_INT(f->n, n);
		for (size_t i = 0; i < f->n; i++)
			if (fabs(f->ft_ms[i] - ((double)(5 + i % 7) + (double)(i % 1000) / 1000)) >
			    1e-9)
				bad++;
		CHECK_INT(bad, 0);
		CHECK(strstr(notes.buf, "2 swap chains in the log; kept "
					"'game.exe,4242,0x000001D3A8F0C2B0' (200000 frames), left "
					"out 200 rows of the others") != NULL);
	}
	frames_free(f);
	sb_release(&notes);
	remove(path);
}

int main(void)
{
	T_RUN(test_written_fixtures);
	T_RUN(test_mangohud_elapsed);
	T_RUN(test_mangohud_068_real);
	T_RUN(test_mangohud_versions);
	T_RUN(test_cut_short);
	T_RUN(test_errors);
	T_RUN(test_plain_details);
	T_RUN(test_numbers_exact);
	T_RUN(test_num_parse_strtod);
	T_RUN(test_next_row_same);
	T_RUN(test_no_trailing_newline);
	T_RUN(test_format_names);
	T_RUN(test_missing_file);
	T_RUN(test_stdin);
	T_RUN(test_large);
	T_RUN(test_presentmon_big_file);
	T_RUN(test_read_in_blocks);
	return t_exit();
}
