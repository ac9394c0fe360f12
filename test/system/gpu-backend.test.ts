import {afterEach, expect, test} from 'vitest';
import {openGpuBackend, type GpuBackend} from '../../src/system/gpu-backend.js';
import {readGpuStateOnce} from '../../src/system/gpu-state-once.js';
import {fakeEnv} from '../helpers/fake-nvidia-smi/harness.js';
import {until} from '../helpers/until.js';

// The one place a GPU backend is picked: today nvidia-smi (the fake one on PATH here, a real child process), whose
// states carry its name so that the views say whose words they show.

const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';
const opened: GpuBackend[] = [];
afterEach(async () => {
	await Promise.all(opened.splice(0).map(backend => backend.stop()));
});

test('openGpuBackend gives nvidia-smi by default; its states name it as their source', async () => {
	const backend = openGpuBackend({intervalMs: 100, processIntervalMs: 0, env: fakeEnv({FAKE_NVSMI_SCENARIO: H100})});
	opened.push(backend);
	expect(backend.source).toBe('nvidia-smi');
	expect(backend.getState()).toMatchObject({status: 'starting', source: 'nvidia-smi'});
	backend.start();
	const state = await until(
		() => backend.getState(),
		s => s.status === 'ok',
		'a sample from the fake nvidia-smi',
	);
	expect(state).toMatchObject({source: 'nvidia-smi', gpus: [{index: 0, name: 'NVIDIA H100 80GB HBM3'}]});
});

test('the one-shot read goes through the same factory: its state names its source, absent ones too', async () => {
	const state = await readGpuStateOnce('nvidia-smi', {env: fakeEnv({FAKE_NVSMI_SCENARIO: H100})});
	expect(state).toMatchObject({status: 'ok', source: 'nvidia-smi'});
	const absent = await readGpuStateOnce('/nonexistent/nvidia-smi');
	expect(absent).toEqual({status: 'absent', reason: '/nonexistent/nvidia-smi not found', source: 'nvidia-smi'});
});
