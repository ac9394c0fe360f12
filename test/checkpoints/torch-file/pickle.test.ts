import path from 'node:path';
import {readFileSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {readPickle} from '../../../src/checkpoints/torch-file/pickle.js';
import {
	attr,
	callArgs,
	dictEntries,
	dictGet,
	enumValue,
	globalName,
	objectState,
	pyBool,
	pyInt,
	pyItems,
	pyNumber,
	pyRepr,
	pyStr,
	type PyValue,
} from '../../../src/checkpoints/torch-file/py-value.js';

// The safe pickle interpreter on what CPython 3.11's own pickler wrote at protocols 0 to 5
// (scripts/make-pickle-fixtures.py → test/fixtures/pickles/proto<N>.pkl): the same object at each protocol.

const PICKLES = path.resolve('test/fixtures/pickles');

function read(protocol: number): PyValue {
	const result = readPickle(readFileSync(path.join(PICKLES, `proto${protocol}.pkl`)));
	if (result.status !== 'ok') throw new Error(`proto${protocol}: ${result.why}`);
	return result.value;
}

describe('Python pickles, protocols 0 to 5, as data', () => {
	it.each([0, 1, 2, 3, 4, 5])('protocol %i: plain values, the memo, an object with its __dict__', protocol => {
		const root = read(protocol);
		const get = (key: string) => dictGet(root, key);
		expect([get('small'), get('medium'), get('negative')].map(pyInt)).toEqual([5, 300, -70000]);
		expect(get('big')).toEqual({type: 'int', value: 2n ** 70n});
		expect(get('huge')).toEqual({type: 'int', value: 2n ** 2100n});
		expect(pyNumber(get('float'))).toBe(1.5);
		expect(pyStr(get('text'))).toBe('héllo');
		expect(pyStr(get('long_text'))).toBe('x'.repeat(300));
		expect(get('none')).toEqual({type: 'none'});
		expect([pyBool(get('yes')), pyBool(get('no'))]).toEqual([true, false]);
		expect(pyRepr(get('tuple1'))).toBe('(1,)');
		expect(pyItems(get('tuple3')).map(pyInt)).toEqual([1, 2, 3]);
		expect(pyItems(get('tuple5')).map(pyInt)).toEqual([1, 2, 3, 4, 5]);
		expect(pyItems(get('list')).map(pyInt)).toEqual([1, 2, 3]);
		// One list referenced twice: the memo gives the same node.
		const [first, second] = pyItems(get('shared'));
		expect(first).toBe(second);
		expect(pyItems(first).map(pyStr)).toEqual(['shared']);
		// Memo entries past 255: LONG_BINPUT / LONG_BINGET (protocols 1–3), MEMOIZE (4+).
		expect(pyItems(get('again')).map(pyStr)).toEqual(pyItems(get('many_refs')).slice(280).map(pyStr));
		expect(pyItems(get('many'))).toHaveLength(300);
		// OrderedDict: a call of collections.OrderedDict whose items SETITEMS put on it.
		expect(globalName(get('ordered'))).toBe('collections.OrderedDict');
		expect(dictEntries(get('ordered')).map(([k, v]) => [pyStr(k), pyInt(v)])).toEqual([
			['a', 1],
			['b', 2],
		]);
		// The object: its state is its __dict__; the enum member a call of its class with its value.
		const args = get('args');
		expect(pyInt(attr(args, 'save_total_limit'))).toBe(2);
		expect(attr(args, 'metric_for_best_model')).toEqual({type: 'none'});
		const strategy = attr(args, 'save_strategy');
		expect(globalName(strategy)).toBe('__main__.Strategy');
		expect(pyStr(enumValue(strategy))).toBe('steps');
		expect(objectState(args)?.type).toBe('dict');
	});

	it('protocol 2: NEWOBJ of the class; below 2, copyreg._reconstructor (named copy_reg, as Python 2 spelled it)', () => {
		expect(globalName(dictGet(read(2), 'args'))).toBe('__main__.Args');
		expect(globalName(dictGet(read(1), 'args'))).toBe('copy_reg._reconstructor');
	});

	it.each([4, 5])('protocol %i: sets, frozensets, bytes, NEWOBJ_EX with its kwargs', protocol => {
		const root = read(protocol);
		expect(dictGet(root, 'set')).toEqual({type: 'set', items: [{type: 'int', value: 7n}]});
		expect(dictGet(root, 'frozenset')).toEqual({type: 'frozenset', items: [{type: 'int', value: 8n}]});
		expect(dictGet(root, 'bytes')).toEqual({type: 'bytes', value: Buffer.from([0, 1, 2])});
		const keyworded = dictGet(root, 'keyworded');
		expect(globalName(keyworded)).toBe('__main__.Keyworded');
		expect(callArgs(keyworded).map(pyInt)).toEqual([1]);
		expect(keyworded?.type === 'call' && pyStr(dictGet(keyworded.kwargs ?? undefined, 'mode'))).toBe('min');
	});

	it('never calls anything: a pickle that would run os.system is only a call node naming it', () => {
		// pickle.dumps of an object whose __reduce__ returns (os.system, ('echo pwned',)), protocol 2.
		const hostile = Buffer.concat([
			Buffer.from([0x80, 0x02]),
			Buffer.from('cposix\nsystem\n', 'latin1'),
			Buffer.from([0x58, 10, 0, 0, 0]),
			Buffer.from('echo pwned'),
			Buffer.from([0x85, 0x52, 0x2e]),
		]);
		const result = readPickle(hostile);
		expect(result.status === 'ok' && pyRepr(result.value)).toBe("system('echo pwned')");
	});

	it('refuses what it cannot read, with the opcode and offset; bounded', () => {
		expect(readPickle(Buffer.from([0x80, 0x02, 0x4b, 0x01, 0xfe, 0x2e]))).toEqual({
			status: 'unreadable',
			why: 'pickle opcode 0xfe at offset 4 is not one this reader knows',
		});
		expect(readPickle(Buffer.from([0x80, 0x02, 0x4b]))).toEqual({
			status: 'unreadable',
			why: 'pickle cut short: 1 bytes needed at offset 3, it ends at 3',
		});
		expect(readPickle(Buffer.from([0x80, 0x02, 0x68, 0x07, 0x2e]))).toEqual({
			status: 'unreadable',
			why: 'pickle memo index 7 was never stored',
		});
		// A BINUNICODE8 claiming 2^40 bytes allocates nothing.
		const huge = Buffer.concat([Buffer.from([0x80, 0x04, 0x8d]), Buffer.from([0, 0, 0, 0, 0, 1, 0, 0])]);
		expect(readPickle(huge)).toEqual({
			status: 'unreadable',
			why: 'pickle a length of 1099511627776 bytes, beyond the pickle',
		});
		// 2000 nested marks.
		expect(readPickle(Buffer.concat([Buffer.from([0x80, 0x02]), Buffer.alloc(2000, 0x28)]))).toEqual({
			status: 'unreadable',
			why: 'pickle marks nested over 1000 deep',
		});
		const limits = {maxOps: 10, maxStack: 100, maxMarks: 10, maxMemo: 10};
		expect(readPickle(Buffer.concat([Buffer.from([0x80, 0x02]), Buffer.alloc(20, 0x4e)]), 0, limits)).toEqual({
			status: 'unreadable',
			why: 'pickle over 10 opcodes',
		});
	});
});
