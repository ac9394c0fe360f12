import {expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';

// `traintop preflight` through the built binary: the routing, the exit codes and the JSON as a user meets them.

test('traintop preflight through the binary: exit 4 when it cannot fit, 2 on bad input, the JSON versioned', async () => {
	// 64 workers × 16 prefetched × 1024 × 3×4096×4096 float64 × 2: petabytes, on any machine.
	const huge = await runCli([
		'preflight',
		'--workers',
		'64',
		'--prefetch-factor',
		'16',
		'--batch-size',
		'1024',
		'--sample-shape',
		'3x4096x4096',
		'--dtype',
		'float64',
		'--nvidia-smi',
		'/nonexistent/nvidia-smi',
	]);
	expect(huge.stdout).toMatch(/^Verdict +WILL NOT FIT \(exit 4\)$/m);
	expect(huge.code).toBe(4);
	const bad = await runCli(['preflight', '--sample-shape', '3x0']);
	expect(bad.code).toBe(2);
	expect(bad.stderr).toMatch(/^traintop: .*--sample-shape/);
	const json = await runCli(['preflight', '--json', '--nvidia-smi', '/nonexistent/nvidia-smi']);
	expect(json.code).toBe(0);
	expect(JSON.parse(json.stdout)).toMatchObject({schema_version: 1, verdict: 'unknown', exit_code: 0});
});
