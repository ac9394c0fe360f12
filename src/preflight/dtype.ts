import {DTYPE_ALIASES, DTYPE_BYTES} from '../core/dtypes.js';
import {UsageError} from '../core/errors.js';

// Bytes per element of the tensor dtypes a DataLoader hands over. The seed's estimator assumes float32 (4 bytes);
// a loader that yields bfloat16 or uint8 images holds a half or a quarter of that, so the dtype is an input.

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
	const name = DTYPE_ALIASES[bare] ?? bare;
	const bytes = DTYPE_BYTES[name];
	if (bytes === undefined) {
		throw new UsageError(
			`${where} must be a tensor dtype such as float32, bfloat16 or uint8 (got '${text}'); known: ${Object.keys(DTYPE_BYTES).join(', ')}`,
		);
	}
	return {name, bytes};
}
