import {defineConfig} from 'vitest/config';

export default defineConfig({
	test: {
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		// Ink renders differently when CI is set (see ../shared/reference/ink-notes.md §4), and colours
		// would make frame assertions brittle.
		// XDG_CONFIG_HOME: no default config file (~/.config/traintop/config.json) of whoever runs the tests applies
		// to the CLIs they start; a missing one is silent.
		env: {CI: 'false', FORCE_COLOR: '0', NO_COLOR: '1', XDG_CONFIG_HOME: '/nonexistent/traintop-tests-config'},
		// Many tests start real child processes and send real signals, and most of their time is waiting: on SLURM's
		// 30 s controller tick, on a job's next save, on a child's answer. With two workers on two cores the suite
		// used 39 % of the CPU (388 s of CPU in 500 s), so four workers: the whole suite in 282 s rather than 470 s
		// on the same 2-core machine, every test passing. The waits are on events, with generous timeouts.
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: 'forks',
		maxWorkers: 4,
	},
});
