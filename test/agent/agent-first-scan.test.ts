import {mkdirSync, writeFileSync} from 'node:fs';
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterEach, beforeEach, expect, test} from 'vitest';
import {agentSnapshots} from '../helpers/agent-messages.js';
import {FAKE_BIN, fakeEnv} from '../helpers/fake-nvidia-smi/harness.js';
import {type CliRun, startCli} from '../helpers/run-cli.js';

// Issue 17 (large run dirs): the first scan of a run dir of many files takes seconds, and sampling does not wait for
// it. The real binary (`traintop agent`, whose stdout is every snapshot) on 1500 Hugging Face checkpoints of 20 files:
// the first snapshots carry the first scan's stand-in, later ones the checkpoints, and no "saved" event for them.

const CHECKPOINTS = 1500;
let dir: string;
let agent: CliRun | null = null;
beforeEach(async () => {
	dir = await mkdtemp(path.join(tmpdir(), 'traintop-first-scan-'));
});
afterEach(async () => {
	agent?.child.kill('SIGKILL');
	agent = null;
	await rm(dir, {recursive: true, force: true});
});

test('snapshots start before the first scan of a large run dir ends: its stand-in first, then its checkpoints', async () => {
	const run = path.join(dir, 'run');
	for (let step = 1; step <= CHECKPOINTS; step++) {
		const checkpoint = path.join(run, `checkpoint-${step}`);
		mkdirSync(checkpoint, {recursive: true});
		for (let shard = 0; shard < 19; shard++) writeFileSync(path.join(checkpoint, `model-${shard}.safetensors`), 'x');
		writeFileSync(path.join(checkpoint, 'trainer_state.json'), JSON.stringify({global_step: step}));
	}
	agent = startCli(['agent', run, '--interval', '0.1', '--nvidia-smi', FAKE_BIN], {
		env: fakeEnv({FAKE_NVSMI_SCENARIO: 'cap-linux-h100-80gb-hbm3-590.48.01'}),
	});
	const snapshots = () => agentSnapshots(agent!);
	await agent.waitFor(() => snapshots().some(s => s.checkpoints?.checkpoints.length === CHECKPOINTS), 60_000);
	const all = snapshots();
	const firstScanned = all.findIndex(s => s.checkpoints?.checkpoints.length === CHECKPOINTS);
	// Memory and GPUs sampled while the scan ran, each such snapshot saying so.
	expect(firstScanned).toBeGreaterThan(0);
	for (const early of all.slice(0, firstScanned)) {
		expect(early.memory).not.toBeNull();
		expect(early.checkpoints).toMatchObject({scanning: true, checkpoints: []});
	}
	expect(all[firstScanned]?.checkpoints?.scanning).toBeUndefined();
	// The 1500 were there before traintop: none is reported as a save.
	expect(all.flatMap(s => s.events).filter(e => e.kind === 'save-seen')).toEqual([]);
}, 180_000);
