import {UsageError} from '../core/errors.js';

// A sample's shape, CxHxW for an image (`3x224x224`), any number of dimensions for other data (`2048` tokens,
// `4x32x256x256` for a volume). Written as text on the command line, as text or a list in a config file.

const EXAMPLE = 'e.g. 3x224x224 (channels × height × width)';

function refuse(where: string, got: unknown, why: string): never {
	const shown = typeof got === 'string' ? `'${got}'` : JSON.stringify(got);
	throw new UsageError(`${where} must be positive whole numbers joined by x, ${EXAMPLE} (got ${shown}: ${why})`);
}

function dimension(value: unknown, where: string, got: unknown): number {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isInteger(number))
		refuse(where, got, `${String(value)} is not a whole number`);
	if (number < 1) refuse(where, got, `${number} is not above 0`);
	return number;
}

/** `3x224x224`, `[3, 224, 224]` or `2048` → its dimensions; a UsageError naming `where` otherwise. */
export function parseSampleShape(value: unknown, where: string): number[] {
	if (typeof value === 'number') return [dimension(value, where, value)];
	if (Array.isArray(value)) {
		if (value.length === 0) refuse(where, value, 'no dimensions');
		return value.map(item => dimension(item, where, value));
	}
	if (typeof value !== 'string') refuse(where, value, 'not text or a list');
	const parts = value.trim().split(/\s*[x×]\s*/i);
	if (parts.length === 1 && parts[0] === '') refuse(where, value, 'empty');
	return parts.map(part => dimension(part, where, value));
}

/** Elements in one sample: the product of its dimensions. */
export function elementsOf(shape: readonly number[]): number {
	return shape.reduce((product, dim) => product * dim, 1);
}

/** `40x721x1440`. */
export function formatShape(shape: readonly number[]): string {
	return shape.join('x');
}
