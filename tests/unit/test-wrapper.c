// SPDX-License-Identifier: MIT
/*
 * test-wrapper.c: the program a command line runs, looked through every
 * wrapper of the table (issue 27 item 2: `record -- mangohud openarena` was
 * named `mangohud`), their options with attached and separate values, `--`,
 * and hostile lines: no words, a wrapper with nothing after it, an empty
 * word, an expansion, a line of a thousand wrappers, a long name.
 */
#include <errno.h>

#include "core/argsplit.h"
#include "core/wrapper.h"
#include "t.h"

/* LINE split as a shell would (argsplit), named: NAME through VIA. */
static void check(const char *line, const char *name, const char *via, int lineno)
{
	struct strbuf err = STRBUF_INIT;
	struct wrapper_name w;
	char **v = NULL;
	int n = argsplit(line, &v, &err);

	t_checks++;
	if (n < 0 || wrapper_name(n, (const char *const *)v, &w) < 0) {
		T_FAIL("line %d: [%s] not named", lineno, line);
	} else if (strcmp(w.name, name) || strcmp(w.via, via)) {
		T_FAIL("line %d: [%s] named '%s' via '%s', expected '%s' via '%s'", lineno, line,
		       w.name, w.via, name, via);
	}
	argsplit_free(v);
	sb_release(&err);
}
#define NAMED(line, name, via) check(line, name, via, __LINE__)

static void test_plain(void)
{
	NAMED("openarena +set timedemo 1", "openarena", "");
	NAMED("/usr/games/openarena", "openarena", "");
	NAMED("./build/fakegame --seconds 3", "fakegame", "");
	NAMED("mangohud openarena +map oa_dm1", "openarena", "mangohud");
	NAMED("/usr/bin/mangohud --dlsym glxgears", "glxgears", "mangohud");
	NAMED("gamemoderun supertuxkart", "supertuxkart", "gamemoderun");
	NAMED("prime-run neverball", "neverball", "prime-run");
	NAMED("primusrun glxgears", "glxgears", "primusrun");
	NAMED("optirun -b primus glxgears", "glxgears", "optirun");
	NAMED("steam-run ./game.x86_64 -windowed", "game.x86_64", "steam-run");
	NAMED("nohup minetest --go", "minetest", "nohup");
	NAMED("setsid -f -w glxgears", "glxgears", "setsid");
	NAMED("stdbuf -oL -e 0 glxgears", "glxgears", "stdbuf");
	NAMED("time -f %e -o t.txt glxgears", "glxgears", "time");
	NAMED("gamescope -W 1280 -H 720 -- openarena", "openarena", "gamescope");
}

static void test_env(void)
{
	NAMED("env FOO=1 openarena", "openarena", "env");
	NAMED("env -i PATH=/bin A=b=c ./game", "game", "env");
	NAMED("env -u DISPLAY -uWAYLAND_DISPLAY --unset XDG_X --unset=Y game", "game", "env");
	NAMED("env -C /tmp --chdir /var --chdir=/ -0 -v game", "game", "env");
	NAMED("env - HOME=/x game", "game", "env");
	NAMED("env -- FOO=1 game", "game", "env");
	NAMED("env --default-signal=INT --ignore-signal game", "game", "env");
	NAMED("env -S 'FOO=1 mangohud' game", "game", "env mangohud");
	NAMED("env -iS'nice -n 5' game", "game", "env nice");
	NAMED("env --split-string='A=1 game' -x", "game", "env");
	NAMED("env --split-string 'A=1 wine64 x.exe'", "x", "env wine64");
}

static void test_sched(void)
{
	NAMED("nice -n 5 game", "game", "nice");
	NAMED("nice -n5 game", "game", "nice");
	NAMED("nice -n -5 game", "game", "nice");
	NAMED("nice --adjustment=10 game", "game", "nice");
	NAMED("nice --adjustment 10 game", "game", "nice");
	NAMED("nice -10 game", "game", "nice");
	NAMED("nice --10 game", "game", "nice");
	NAMED("nice -- game", "game", "nice");
	NAMED("ionice -c 3 game", "game", "ionice");
	NAMED("ionice -c2 -n7 -t game", "game", "ionice");
	NAMED("ionice --class=idle --classdata 0 game", "game", "ionice");
	NAMED("taskset 0x3 game", "game", "taskset");
	NAMED("taskset -c 0,2-3 game", "game", "taskset");
	NAMED("taskset --cpu-list -- 1 game", "game", "taskset");
	NAMED("taskset -a -c 1 game", "game", "taskset");
	NAMED("chrt -f 10 game", "game", "chrt");
	NAMED("chrt --rr 5 game", "game", "chrt");
	NAMED("chrt -o 0 game", "game", "chrt");
	NAMED("chrt -b game", "game", "chrt");
	NAMED("chrt -d -T 500000 -P 1000000 -D 1000000 0 game", "game", "chrt");
	NAMED("chrt -R --sched-runtime=5 -f 1 game", "game", "chrt");
	NAMED("timeout 30 game", "game", "timeout");
	NAMED("timeout -s KILL -k 5 30s game", "game", "timeout");
	NAMED("timeout --signal=INT --foreground 30 game", "game", "timeout");
}

static void test_xvfb(void)
{
	NAMED("xvfb-run -a glxgears", "glxgears", "xvfb-run");
	NAMED("xvfb-run -a -s '-screen 0 1280x720x24' glxgears -info", "glxgears", "xvfb-run");
	NAMED("xvfb-run -n 99 -s-ac -e err.txt -f auth -p MIT -w 1 glxgears", "glxgears",
	      "xvfb-run");
	NAMED("xvfb-run -n99 --server-args='-screen 0 8x8x24' --auto-servernum -- glxgears",
	      "glxgears", "xvfb-run");
	NAMED("xvfb-run --error-file /dev/null --listen-tcp glxgears", "glxgears", "xvfb-run");
}

static void test_shell(void)
{
	NAMED("sh -c 'exec ./fakegame --seconds 1'", "fakegame", "sh");
	NAMED("sh -c './fakegame; echo done'", "fakegame", "sh");
	NAMED("sh -c 'fakegame;echo'", "fakegame", "sh");
	NAMED("sh -c 'game&'", "game", "sh");
	NAMED("sh -c ';game'", "game", "sh");
	NAMED("sh -c 'sleep 1; exec game'", "game", "sh");
	NAMED("sh -c 'export A=1; game; echo done'", "game", "sh");
	NAMED("sh -c 'echo x >&2; >>log 2>&1 game 2>&1 | tee log'", "game", "sh");
	NAMED("sh -c 'cat list | game'", "game", "sh");
	NAMED("sh -c 'cd /x;./game'", "game", "sh");
	NAMED("sh -c 'A=1 B=2; exec; exec -a name -- nice game'", "game", "sh nice");
	NAMED("bash -c 'FOO=1 BAR=\"a b\" exec -a x game -f && echo'", "game", "bash");
	NAMED("bash -lc 'cd /opt/game && ./run.x86_64 -x'", "run.x86_64", "bash");
	NAMED("sh -ec 'cd /opt/game; exec mangohud ./game'", "game", "sh mangohud");
	NAMED("bash --norc -o pipefail -c 'nice -n 5 game | tee log'", "game", "bash nice");
	NAMED("sh -c 'exec sh -c \"exec game\"'", "game", "sh sh");
	NAMED("sh ./launch.sh --fast", "launch.sh", "sh");
	NAMED("dash +e -c game", "game", "dash");
	NAMED("zsh -c game", "game", "zsh");
	/* nothing a name can come from: the shell is the program */
	NAMED("sh -c '$GAME --go'", "sh", "");
	NAMED("sh -c '`which game`'", "sh", "");
	NAMED("sh -c ''", "sh", "");
	NAMED("sh -c 'exec'", "sh", "");
	NAMED("sh -c 'cd /x'", "sh", "");
	NAMED("sh -c 'echo hello; sleep 0.3; exit 5'", "sh", "");	/* builtins only */
	NAMED("sh -c 'exit 1; game'", "sh", "");
	NAMED("sh -c 'kill -9 $$'", "sh", "");	/* test-recorder's and record-early-exit's */
	NAMED("sh -c 'command -p game'", "game", "sh");
	NAMED("sh -c 'for i in 1 2; do game; done'", "sh", "");
	NAMED("sh -c 'if true; then game; fi'", "sh", "");
	NAMED("sh -c '; ; &&'", "sh", "");
	NAMED("sh -c \"''\"", "sh", "");
	NAMED("sh -c 'unterminated \"quote'", "sh", "");
	NAMED("sh -c", "sh", "");
	NAMED("sh -s", "sh", "");
	NAMED("mangohud sh -c '$X'", "sh", "mangohud");
	NAMED("sh -c '$HOME/games/quake'", "quake", "sh");	/* the base name is plain */
}

static void test_wine(void)
{
	NAMED("wine game.exe", "game", "wine");
	NAMED("wine64 /home/u/.wine/drive_c/Games/Foo/Foo.EXE -dx11", "Foo", "wine64");
	NAMED("wine 'C:\\Program Files\\Bar\\bar.exe'", "bar", "wine");
	NAMED("wine start /unix /home/u/x/setup.exe", "setup", "wine");
	NAMED("wine start /wait /min /d 'C:\\x' 'C:\\x\\app.exe'", "app", "wine");
	NAMED("wine notepad", "notepad", "wine");
	NAMED("wine .exe", ".exe", "wine");	/* nothing left without .exe: kept */
	NAMED("wine64-stable d3d12test.exe", "d3d12test", "wine64-stable");
	NAMED("proton run Game.exe", "Game", "proton");
	NAMED("proton version", "proton", "");
	NAMED("wine", "wine", "");
	NAMED("wine --version", "wine", "");
	NAMED("wine start", "wine", "");
	NAMED("wine 'C:\\games\\'", "wine", "");
}

static void test_flatpak(void)
{
	NAMED("flatpak run net.supertuxkart.SuperTuxKart", "supertuxkart", "flatpak");
	NAMED("flatpak --user run --branch=stable --arch x86_64 --command=sh "
	      "ws.openarena.OpenArena +set x", "openarena", "flatpak");
	NAMED("flatpak run org.neverball.Neverball//stable", "neverball", "flatpak");
	NAMED("flatpak run -v --env=A=1 --filesystem host org.luanti.luanti/x86_64/stable --go",
	      "luanti", "flatpak");
	NAMED("flatpak install foo", "flatpak", "");
	NAMED("flatpak run", "flatpak", "");
	NAMED("flatpak run org.x.", "flatpak", "");
}

static void test_combined(void)
{
	NAMED("mangohud env X=1 wine64 foo.exe", "foo", "mangohud env wine64");
	NAMED("gamemoderun mangohud taskset -c 2,3 nice -n -5 openarena +map x", "openarena",
	      "gamemoderun mangohud taskset nice");
	NAMED("env A=1 nice -n 0 sh -c 'exec fakegame --seconds 1'", "fakegame", "env nice sh");
	NAMED("xvfb-run -a env LIBGL_ALWAYS_SOFTWARE=1 mangohud glxgears", "glxgears",
	      "xvfb-run env mangohud");
	NAMED("chrt -f 10 ionice -c 2 -n 0 prime-run steam-run ./game", "game",
	      "chrt ionice prime-run steam-run");
}

static void test_nothing_after(void)
{
	NAMED("env", "env", "");
	NAMED("env FOO=1 BAR=2", "env", "");
	NAMED("env -u X", "env", "");
	NAMED("env -S", "env", "");
	NAMED("env -- ", "env", "");
	NAMED("mangohud", "mangohud", "");
	NAMED("mangohud --dlsym", "mangohud", "");
	NAMED("nice -n", "nice", "");
	NAMED("nice -n 5", "nice", "");
	NAMED("taskset 0x3", "taskset", "");
	NAMED("taskset -p 0x3 1234", "taskset", "");
	NAMED("taskset --pid 1234", "taskset", "");
	NAMED("ionice -p 1234", "ionice", "");
	NAMED("chrt -p 10 1234", "chrt", "");
	NAMED("chrt -m", "chrt", "");
	NAMED("xvfb-run -a", "xvfb-run", "");
	NAMED("xvfb-run -s", "xvfb-run", "");
	NAMED("gamescope -W 1280", "gamescope", "");
	NAMED("gamescope --", "gamescope", "");
	NAMED("mangohud env", "env", "mangohud");
	NAMED("mangohud ''", "mangohud", "");
	NAMED("mangohud /usr/bin/", "mangohud", "");
	NAMED("nice --", "nice", "");
}

static void test_hostile(void)
{
	struct wrapper_name w = { "keep", "keep" };
	const char *none[] = { NULL };
	const char *empty[] = { "" };
	const char *slash[] = { "/" };
	const char *hole[] = { "env", NULL, "game" };
	const char *deep[1200];
	char longname[600], line[4200];

	CHECK_INT(wrapper_name(0, none, &w), -EINVAL);
	CHECK_INT(wrapper_name(1, none, &w), -EINVAL);
	CHECK_INT(wrapper_name(1, NULL, &w), -EINVAL);
	CHECK_INT(wrapper_name(1, empty, &w), -EINVAL);
	CHECK_INT(wrapper_name(1, slash, &w), -EINVAL);
	CHECK_INT(wrapper_name(3, hole, &w), -EINVAL);
	CHECK_STR(w.name, "keep");	/* untouched on error */

	/* a thousand wrappers: a bounded walk (named after the wrapper where
	 * it stopped), the via list cut with "..." */
	for (int i = 0; i < 1199; i++)
		deep[i] = i % 2 ? "steam-run" : "gamemoderun";
	deep[1199] = "game";
	CHECK_INT(wrapper_name(1200, deep, &w), 0);
	CHECK(strlen(w.via) < WRAPPER_VIA_MAX);
	CHECK(strlen(w.via) >= 3 && !strcmp(w.via + strlen(w.via) - 3, "..."));
	CHECK(!strcmp(w.name, "gamemoderun") || !strcmp(w.name, "steam-run"));

	/* a name longer than the buffer: cut, terminated */
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	deep[0] = "mangohud";
	deep[1] = longname;
	CHECK_INT(wrapper_name(2, deep, &w), 0);
	CHECK_INT(strlen(w.name), WRAPPER_NAME_MAX - 1);

	/* a megabyte of shell string: bounded work (16 commands looked at) */
	{
		size_t big = 1 << 20;
		char *str = malloc(big + 1);
		const char *sh[] = { "sh", "-c", str };

		CHECK(str != NULL);
		if (str) {
			for (size_t i = 0; i < big; i++)
				str[i] = "echo x;"[i % 7];
			str[big] = '\0';
			CHECK_INT(wrapper_name(3, sh, &w), 0);
			CHECK_STR(w.name, "sh");
			memset(str, 'g', big);	/* one word of a megabyte: cut */
			CHECK_INT(wrapper_name(3, sh, &w), 0);
			CHECK_INT(strlen(w.name), WRAPPER_NAME_MAX - 1);
			CHECK_STR(w.via, "sh");
			free(str);
		}
	}

	/* shell strings nested past the depth limit: named after a shell */
	snprintf(line, sizeof(line), "sh -c 'exec sh -c \"exec sh -c \\\"exec sh -c x\\\"\"'");
	NAMED(line, "x", "sh sh sh sh");
	NAMED("sh -c 'sh -c \"sh -c \\\"sh -c \\\\\\\"sh -c y\\\\\\\"\\\"\"'", "sh", "sh sh sh sh");
}

static void test_is_same(void)
{
	CHECK(wrapper_is("mangohud") && wrapper_is("env") && wrapper_is("xvfb-run"));
	CHECK(wrapper_is("sh") && wrapper_is("wine64") && wrapper_is("flatpak"));
	CHECK(!wrapper_is("openarena") && !wrapper_is("ioquake3") && !wrapper_is(NULL));
	CHECK(!wrapper_is(""));

	CHECK(wrapper_same("glxgears", "glxgears"));
	CHECK(wrapper_same("supertuxkart-1.4-lean", "supertuxkart-1."));	/* comm: 15 bytes */
	CHECK(wrapper_same("game", "game.exe"));	/* Wine names its process after the .exe */
	CHECK(wrapper_same("Foo", "Foo.EXE"));
	CHECK(wrapper_same("averylongname1", "averylongname1."));	/* .exe cut to 15 */
	CHECK(!wrapper_same("game", "gamex"));
	CHECK(!wrapper_same("game", "gam"));
	CHECK(!wrapper_same("openarena", "ioquake3"));
	CHECK(!wrapper_same("short", "short.ex"));	/* only a 15-byte comm is cut */
	CHECK(!wrapper_same("", "x") && !wrapper_same("x", "") && !wrapper_same(NULL, "x"));
}

int main(void)
{
	T_RUN(test_plain);
	T_RUN(test_env);
	T_RUN(test_sched);
	T_RUN(test_xvfb);
	T_RUN(test_shell);
	T_RUN(test_wine);
	T_RUN(test_flatpak);
	T_RUN(test_combined);
	T_RUN(test_nothing_after);
	T_RUN(test_hostile);
	T_RUN(test_is_same);
	return t_exit();
}
