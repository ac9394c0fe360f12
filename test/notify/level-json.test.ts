import {expect, test} from 'vitest';
import {startCli} from '../helpers/run-cli.js';

// Headless --json prints each level change as an object (`{"event":"level",…}`), the one a notice about it carries:
// the built traintop with a RAM threshold of 0.1 % (any machine is over it), so RAM turns CRIT at the first sample.

type Line = Record<string, unknown>;

const objects = (stdout: string): Line[] =>
	stdout
		.split('\n')
		.filter(line => line.startsWith('{'))
		.map(line => JSON.parse(line) as Line);

test('RAM over a 0.1 % threshold: one {"event":"level"} object, beside the CRIT line on stderr', async () => {
	const run = startCli([
		'--headless',
		'--json',
		'--no-log',
		'--nvidia-smi',
		'/nonexistent/nvidia-smi',
		'--ram-threshold',
		'0.1',
		'--interval',
		'0.2',
		'--match',
		`traintop-level-json-no-such-process-${process.pid}`,
	]);
	try {
		await run.waitFor(o => o.stdout.includes('"event":"level"'), 20_000);
		run.child.kill('SIGINT');
		expect(await run.exited).toBe(0);
	} finally {
		run.child.kill('SIGKILL');
	}
	const levels = objects(run.stdout()).filter(line => line.event === 'level');
	expect(levels).toHaveLength(1);
	const [level] = levels;
	expect(level).toMatchObject({metric: 'ram', from: 'ok', to: 'critical', level: 'critical', threshold: 0.1});
	expect(Object.keys(level!)).toEqual(['event', 'time', 'metric', 'from', 'to', 'value', 'threshold', 'level', 'text']);
	expect(level!.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	expect(level!.value).toBeGreaterThan(0.1);
	expect(level!.text).toMatch(/^CRIT ram at \d+\.\d%: at or above the 0\.1% threshold \(was ok\)$/);
	// The same change as the stderr line says it, after its time.
	expect(run.stderr()).toContain(`CRIT ${String(level!.text).slice('CRIT '.length)}`);
});
