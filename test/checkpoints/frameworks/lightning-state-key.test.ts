import {describe, expect, it} from 'vitest';
import {parseModelCheckpointKey} from '../../../src/checkpoints/layouts/lightning-state-key.js';
import {parsePyLiteral} from '../../../src/checkpoints/layouts/python-literal.js';

// The keys below are copied from the `callbacks` of the .ckpt files Lightning 2.6.6 wrote in test/fixtures/frameworks
// (lightning-topk2, recorded/lightning-default, recorded/lightning-time-interval, recorded/lightning-dirpath-keep3).
const TOPK2 =
	"ModelCheckpoint{'monitor': 'train_loss', 'mode': 'min', 'every_n_train_steps': 10, 'every_n_epochs': 0, 'train_time_interval': None}";
const DEFAULT =
	"ModelCheckpoint{'monitor': None, 'mode': 'min', 'every_n_train_steps': 0, 'every_n_epochs': 1, 'train_time_interval': None}";
const TIME =
	"ModelCheckpoint{'monitor': None, 'mode': 'min', 'every_n_train_steps': 0, 'every_n_epochs': 0, 'train_time_interval': datetime.timedelta(seconds=1)}";
const KEEP3 =
	"ModelCheckpoint{'monitor': 'step', 'mode': 'max', 'every_n_train_steps': 10, 'every_n_epochs': 0, 'train_time_interval': None}";

describe('ModelCheckpoint state key (lightning 2.6.6 Callback._generate_state_key)', () => {
	it('reads monitor, mode and the step cadence of the lightning-topk2 key', () => {
		expect(parseModelCheckpointKey(TOPK2)).toEqual({
			className: 'ModelCheckpoint',
			monitor: 'train_loss',
			mode: 'min',
			everyNTrainSteps: 10,
			everyNEpochs: null,
			trainTimeIntervalS: null,
			written: [
				['monitor', "'train_loss'"],
				['mode', "'min'"],
				['every_n_train_steps', '10'],
				['every_n_epochs', '0'],
				['train_time_interval', 'None'],
			],
		});
	});

	it('reads the default callback (monitor None, every epoch) and the max mode of lightning-dirpath-keep3', () => {
		expect(parseModelCheckpointKey(DEFAULT)).toMatchObject({monitor: null, everyNEpochs: 1, everyNTrainSteps: null});
		expect(parseModelCheckpointKey(KEEP3)).toMatchObject({monitor: 'step', mode: 'max', everyNTrainSteps: 10});
	});

	it.each([
		['datetime.timedelta(seconds=1)', 1],
		['datetime.timedelta(0)', 0],
		['datetime.timedelta(days=1, seconds=30, microseconds=500000)', 86_430.5],
		['datetime.timedelta(days=-1, seconds=86399)', -1],
		// Python before 3.7 wrote the fields positionally.
		['datetime.timedelta(0, 90)', 90],
	])('train_time_interval %s is %f s', (repr, seconds) => {
		const key = TIME.replace('datetime.timedelta(seconds=1)', repr);
		const parsed = parseModelCheckpointKey(key);
		expect(parsed).toMatchObject({trainTimeIntervalS: seconds});
		expect('written' in parsed && parsed.written.at(-1)).toEqual(['train_time_interval', repr]);
	});

	it('keeps a subclass name and a monitor with quotes and escapes as Python writes them', () => {
		const key = `MyCheckpoint{'monitor': "it's/val\\\\loss\\u00e9", 'mode': 'max', 'every_n_train_steps': 0, 'every_n_epochs': 2, 'train_time_interval': None}`;
		expect(parseModelCheckpointKey(key)).toMatchObject({
			className: 'MyCheckpoint',
			monitor: "it's/val\\lossé",
			mode: 'max',
			everyNEpochs: 2,
		});
	});

	it.each([
		["EarlyStopping{'monitor': 'val_loss', 'mode': 'min'}", 'not a ModelCheckpoint key'],
		['ModelCheckpoint', 'not a class name followed by a dict'],
		["ModelCheckpoint{'monitor': 'a', 'mode'}", 'expected ":" at offset 23'],
		[TIME.replace('datetime.timedelta(seconds=1)', "os.system('rm -rf /')"), 'train_time_interval'],
		[TIME.replace('seconds=1', 'fortnights=1'), 'is not a timedelta'],
		[`ModelCheckpoint{${"'x': ".repeat(1000)}1}`, 'longer than'],
	])('refuses %s: %s', (key, why) => {
		const parsed = parseModelCheckpointKey(key);
		expect('problem' in parsed && parsed.problem).toContain(why);
	});
});

describe('Python literal repr', () => {
	it('reads nested containers, numbers and constants, never evaluating a call', () => {
		const parsed = parsePyLiteral("{'a': [1, -2.5e-3, (True, False)], 'b': {}, 'c': inf, 'd': f(1, x='y')}");
		expect(parsed).toMatchObject({
			kind: 'dict',
			entries: [
				[{value: 'a'}, {kind: 'list', items: [{value: 1}, {value: -0.0025}, {kind: 'list'}]}],
				[{value: 'b'}, {kind: 'dict', entries: []}],
				[{value: 'c'}, {kind: 'number', value: Infinity}],
				[{value: 'd'}, {kind: 'call', name: 'f', args: [{value: 1}]}],
			],
		});
	});

	it('names the problem and its offset', () => {
		expect(parsePyLiteral("{'a': 1")).toEqual({problem: 'expected "," at offset 7'});
		expect(parsePyLiteral("'open")).toEqual({problem: 'unterminated string at offset 5'});
		expect(parsePyLiteral('1 2')).toEqual({problem: 'text after the value at offset 2'});
		expect(parsePyLiteral('['.repeat(100))).toEqual({problem: 'nested too deep at offset 33'});
	});
});
