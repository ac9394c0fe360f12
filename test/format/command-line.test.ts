import {expect, test} from 'vitest';
import {compactCommand} from '../../src/format/command-line.js';

test('drops the path of the program only', () => {
	expect(compactCommand('/opt/conda/bin/python3 -u train.py')).toBe('python3 -u train.py');
	expect(compactCommand('python3 /work/train.py --out /tmp/x')).toBe('python3 /work/train.py --out /tmp/x');
	expect(compactCommand('./launch.sh')).toBe('launch.sh');
});

test('one line, single spaces, no blanks at the ends', () => {
	expect(compactCommand('  torchrun\n--nproc 8\t\ttrain.py  ')).toBe('torchrun --nproc 8 train.py');
	expect(compactCommand('')).toBe('');
});
