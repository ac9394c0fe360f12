import {UsageError} from '../core/errors.js';

// Bytes per element of the tensor dtypes a DataLoader hands over. The seed's estimator assumes float32 (4 bytes);
// a loader that yields bfloat16 or uint8 images holds a half or a quarter of that, so the dtype is an input.

const DTYPE_BYTES: Readonly<Record<string, number>> = {
	float64: 8,
	float32: 4,
	float16: 2,
	bfloat16: 2,
	float8_e4m3fn: 1,
	float8_e5m2: 1,
	int64: 8,
	int32: 4,
	int16: 2,
	int8: 1,
	uint8: 1,
	bool: 1,
	complex64: 8,
	complex128: 16,
};

/** PyTorch's and NumPy's other names for the same types (`torch.half`, `np.double`). */
const ALIASES: Readonly<Record<string, string>> = {
	double: 'float64',
	float: 'float32',
	half: 'float16',
	bf16: 'bfloat16',
	fp32: 'float32',
	fp16: 'float16',
	long: 'int64',
	int: 'int32',
	short: 'int16',
};

export const DEFAULT_DTYPE = 'float32';

export interface Dtype {
	/** The canonical name: `float32`, `bfloat16`. */
	readonly name: string;
	readonly bytes: number;
}

/**
 * `float32`, `torch.bfloat16`, `np.uint8`, `half` → its name and size. `where` names the flag or the file and key
 * in the message when the type is not known.
 */
export function parseDtype(text: string, where: string): Dtype {
	const bare = text
		.trim()
		.toLowerCase()
		.replace(/^(torch|numpy|np)\./, '');
	const name = ALIASES[bare] ?? bare;
	const bytes = DTYPE_BYTES[name];
	if (bytes === undefined) {
		throw new UsageError(
			`${where} must be a tensor dtype such as float32, bfloat16 or uint8 (got '${text}'); known: ${Object.keys(DTYPE_BYTES).join(', ')}`,
		);
	}
	return {name, bytes};
}
