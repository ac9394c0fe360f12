import {afterAll, expect, test} from 'vitest';
import {runCli} from '../helpers/run-cli.js';
import {removeTempDirs, tempDir, unwrap, writeIn} from './run-preflight.js';
import {writeSlowSave} from './slow-save.js';

// The line through the built binary: `traintop preflight --batch-script job.sbatch --run-dir runs/exp1`
// with a real batch script and a run dir whose checkpoint took ~2 s to write, against a 1 s warning.

afterAll(removeTempDirs);

test('traintop preflight --batch-script --run-dir: the verdict before launch, in words and JSON, exit 4 on a breach', async () => {
	const runDir = tempDir();
	const measured = await writeSlowSave(runDir, 'ckpt_step200.pt', 2);
	const script = writeIn(tempDir(), 'job.sbatch', '#!/bin/bash\n#SBATCH --signal=USR1@1\n\nsrun python train.py\n');
	const args = ['preflight', '--batch-script', script, '--run-dir', runDir, '--nvidia-smi', '/nonexistent/nvidia-smi'];
	const text = await runCli(args);
	expect(unwrap(text.stdout)).toMatch(
		/^Readiness at-risk: `#SBATCH --signal=USR1@1` \(.*job\.sbatch line 2\) but saves in .* took up to 2(\.\d)? s/m,
	);
	expect(text.code).toBe(0);
	const json = await runCli([...args, '--json', '--fail-on-breach']);
	expect(json.code).toBe(4);
	const parsed = JSON.parse(json.stdout);
	expect(parsed.exit_code).toBe(4);
	expect(parsed.readiness).toMatchObject({verdict: 'at-risk', signal: 'SIGUSR1', lead_s: 1, batch_script: script});
	expect(parsed.readiness.save_s.max).toBeGreaterThan(measured - 0.5);
	expect(parsed.readiness.save_s.max).toBeLessThanOrEqual(measured + 0.05);
	const bad = await runCli(['preflight', '--batch-script', `${script}.missing`]);
	expect(bad.code).toBe(2);
	expect(bad.stderr).toBe(`traintop: --batch-script ${script}.missing: no such file\n`);
}, 60_000);
