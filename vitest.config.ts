import {defineConfig} from 'vitest/config';

export default defineConfig({
	test: {
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		// Ink renders differently when CI is set (see ../shared/reference/ink-notes.md §4), and colours
		// would make frame assertions brittle.
		// XDG_CONFIG_HOME: no default config file (~/.config/traintop/config.json) of whoever runs the tests applies
		// to the CLIs they start; a missing one is silent.
		env: {CI: 'false', FORCE_COLOR: '0', NO_COLOR: '1', XDG_CONFIG_HOME: '/nonexistent/traintop-tests-config'},
		// Many tests start real child processes and send real signals: give them room, and keep
		// the number of workers at the machine's two cores so timing-sensitive tests are not starved.
		testTimeout: 30_000,
		hookTimeout: 30_000,
		pool: 'forks',
		maxWorkers: 2,
	},
});
