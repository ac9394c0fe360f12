// The fake nvidia-smi and the fields a recording has or lacks: what it answers for the GPU sensors traintop asks
// for, and how it plays an older driver that refuses a field.

import {execFile} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {FAKE_BIN, fakeEnv, type Knobs} from './fake-nvidia-smi/harness.js';

const SENSORS = '--query-gpu=index,utilization.gpu,temperature.gpu,power.draw,power.limit';
const CSV = '--format=csv,noheader,nounits';
const H100 = 'cap-linux-h100-80gb-hbm3-590.48.01';

interface Result {
	code: number | null;
	stdout: string;
	stderr: string;
}

function runFake(args: string[], knobs: Knobs): Promise<Result> {
	return new Promise(resolve => {
		execFile(FAKE_BIN, args, {env: fakeEnv(knobs)}, (error, stdout, stderr) => {
			const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
			resolve({code, stdout, stderr});
		});
	});
}

describe('fake nvidia-smi: the sensor fields', () => {
	it('answers them from the captures: H100 idle and load, MIG utilization [N/A], a Windows 2080 SUPER', async () => {
		const idle = await runFake([SENSORS, CSV], {FAKE_NVSMI_SCENARIO: H100});
		const load = await runFake([SENSORS, CSV], {FAKE_NVSMI_SCENARIO: H100, FAKE_NVSMI_FRAME: '2'});
		expect(idle).toEqual({code: 0, stdout: '0, 0, 41, 69.85, 700.00\n', stderr: ''});
		expect(load.stdout).toBe('0, 100, 59, 631.95, 700.00\n');
		const mig = await runFake([SENSORS, CSV], {FAKE_NVSMI_SCENARIO: 'cap-linux-h100-mig-590.48.01'});
		expect(mig.stdout).toBe('0, [N/A], 42, 71.15, 700.00\n');
		const windows = await runFake([SENSORS, CSV], {
			FAKE_NVSMI_SCENARIO: 'windows-x86_64__nvidia-geforce-rtx-2080-super__591.86',
			FAKE_NVSMI_FRAME: '2',
		});
		expect(windows.stdout).toBe('0, 7, 45, 97.43, 250.00\n');
	});

	it('answers [N/A] for a known field the recording did not ask for, never a number', async () => {
		// gpustat#5 (2016) recorded temperature and utilization, not power: those come out [N/A].
		const titan = await runFake([SENSORS, CSV], {FAKE_NVSMI_SCENARIO: 'issue-titanx-8gpu-noheader-nounits'});
		expect(titan.code).toBe(0);
		expect(titan.stdout.split('\n')[1]).toBe('1, 86, 54, [N/A], [N/A]');
		// The GTX 770 recording: its own [Not Supported] kept as recorded.
		const gtx770 = await runFake([SENSORS, CSV], {FAKE_NVSMI_SCENARIO: 'issue-gtx770-not-supported-noheader'});
		expect(gtx770.stdout).toBe('0, [Not Supported], 52, [Not Supported], [Not Supported]\n');
		// GB10: power draw recorded, no limit.
		const gb10 = await runFake([SENSORS, CSV], {FAKE_NVSMI_SCENARIO: 'issue-gb10-unified-memory'});
		expect(gb10.stdout).toBe('0, 0, 35, 11.17, [N/A]\n');
	});

	it('still exits 97 for a field fields.json does not list (a typo), and for any unrecorded field when strict', async () => {
		const typo = await runFake(['--query-gpu=index,power.drew', CSV], {FAKE_NVSMI_SCENARIO: H100});
		expect(typo.code).toBe(97);
		expect(typo.stderr).toContain('no field power.drew');
		const strict = await runFake([SENSORS, CSV], {
			FAKE_NVSMI_SCENARIO: 'issue-titanx-8gpu-noheader-nounits',
			FAKE_NVSMI_FILL_MISSING: 'strict',
		});
		expect(strict.code).toBe(97);
		expect(strict.stdout).toBe('');
	});
});

describe('fake nvidia-smi: an older driver that does not know a field (FAKE_NVSMI_INVALID_FIELDS)', () => {
	it('refuses the whole query with the recorded text naming the first such field, on stdout, exit 2', async () => {
		const result = await runFake([SENSORS, CSV], {
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_INVALID_FIELDS: 'power.limit,power.draw',
		});
		expect(result).toEqual({code: 2, stdout: 'Field "power.draw" is not a valid field to query.\n\n', stderr: ''});
	});

	it('answers a query without those fields as usual, and replays the recording itself as err-invalid-field', async () => {
		const result = await runFake(['--query-gpu=index,temperature.gpu', CSV], {
			FAKE_NVSMI_SCENARIO: H100,
			FAKE_NVSMI_INVALID_FIELDS: 'power.draw',
		});
		expect(result).toEqual({code: 0, stdout: '0, 41\n', stderr: ''});
		const recorded = await runFake([SENSORS, CSV], {FAKE_NVSMI_SCENARIO: 'err-invalid-field'});
		expect(recorded).toEqual({code: 2, stdout: 'Field "device_minor" is not a valid field to query.\n\n', stderr: ''});
	});
});
