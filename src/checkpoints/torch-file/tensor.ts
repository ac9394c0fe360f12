// A one-element tensor's value, read from its storage without torch: Lightning keeps scores (best_model_score, the
// values of best_k_models) as 0-d tensors. A tensor pickles as a call of torch._utils._rebuild_tensor_v2 (or _v3,
// which adds the dtype) with (storage, storage_offset, size, stride, requires_grad, backward_hooks[, dtype]), the
// storage being a persistent id ('storage', <storage class>, key, location, numel[, view_metadata]).
// Source: pytorch/pytorch torch/_tensor.py Tensor._reduce_ex_internal, torch/_utils.py _rebuild_tensor_v2/_v3,
// torch/serialization.py _save/_legacy_save persistent_id (storage class from TypedStorage._pickle_storage_type).

import {DTYPE_ALIASES, DTYPE_BYTES, STORAGE_DTYPES} from '../../core/dtypes.js';
import {elementSize, intTuple, type TorchFile} from './torch-file.js';
import {callArgs, globalName, pyInt, pyItems, pyStr, type PyValue} from './py-value.js';

export type ScalarRead =
	| {readonly status: 'ok'; readonly value: number}
	| {readonly status: 'unreadable'; readonly why: string};

const REBUILDERS = new Set([
	'torch._utils._rebuild_tensor_v2',
	'torch._utils._rebuild_tensor_v3',
	'torch._utils._rebuild_tensor',
]);

/** The element types read, by storage class and by torch dtype name. */
type Element = 'float64' | 'float32' | 'float16' | 'bfloat16' | 'int64' | 'int32' | 'int16' | 'int8' | 'uint8' | 'bool';

const ELEMENTS: ReadonlySet<string> = new Set<Element>([
	'float64',
	'float32',
	'float16',
	'bfloat16',
	'int64',
	'int32',
	'int16',
	'int8',
	'uint8',
	'bool',
]);

/** The element type a torch dtype name (torch.float32, torch.half) or storage class names, when this reader decodes it. */
function elementOf(dtype: string | undefined): Element | undefined {
	const name = dtype === undefined ? undefined : (DTYPE_ALIASES[dtype] ?? dtype);
	return name !== undefined && ELEMENTS.has(name) ? (name as Element) : undefined;
}

/** IEEE 754 half precision. */
function half(bits: number): number {
	const sign = bits & 0x8000 ? -1 : 1;
	const exponent = (bits >> 10) & 0x1f;
	const fraction = bits & 0x3ff;
	if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
	if (exponent === 0x1f) return fraction === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
	return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

function decode(bytes: Buffer, element: Element): number {
	switch (element) {
		case 'float64':
			return bytes.readDoubleLE(0);
		case 'float32':
			return bytes.readFloatLE(0);
		case 'float16':
			return half(bytes.readUInt16LE(0));
		case 'bfloat16': {
			// The top half of a float32.
			const wide = Buffer.alloc(4);
			wide.writeUInt16LE(bytes.readUInt16LE(0), 2);
			return wide.readFloatLE(0);
		}
		case 'int64':
			return Number(bytes.readBigInt64LE(0));
		case 'int32':
			return bytes.readInt32LE(0);
		case 'int16':
			return bytes.readInt16LE(0);
		case 'int8':
			return bytes.readInt8(0);
		case 'uint8':
			return bytes.readUInt8(0);
		case 'bool':
			return bytes.readUInt8(0) === 0 ? 0 : 1;
	}
}

/** Whether a node is a pickled tensor (a call of one of torch's rebuild functions). */
export function isTensor(node: PyValue | undefined): boolean {
	return REBUILDERS.has(globalName(node) ?? '');
}

/** The value of a one-element tensor (0-d, or any shape of one element). Never throws. */
export async function tensorScalar(file: TorchFile, node: PyValue | undefined): Promise<ScalarRead> {
	const unreadable = (why: string): ScalarRead => ({status: 'unreadable', why});
	if (!isTensor(node)) return unreadable(`not a tensor (${globalName(node) ?? node?.type ?? 'nothing'})`);
	const [storage, offsetNode, sizeNode, , , , dtypeNode] = callArgs(node);
	if (storage?.type !== 'persid') return unreadable('its storage is not a persistent id');
	const [tag, storageType, keyNode] = pyItems(storage.id);
	const key = pyStr(keyNode);
	if (pyStr(tag) !== 'storage' || key === null)
		return unreadable('its storage id is not torch’s (storage, type, key, …)');
	const shape = intTuple(sizeNode);
	const offset = pyInt(offsetNode);
	if (shape === null || offset === null) return unreadable('its offset or size is not ints');
	const numel = shape.reduce((a, b) => a * b, 1);
	if (numel !== 1) return unreadable(`${numel} elements (shape [${shape.join(', ')}]), not a scalar`);
	// _rebuild_tensor_v3 names the dtype (a global torch.float32); else the storage class says it.
	const dtype = dtypeNode?.type === 'global' && dtypeNode.module === 'torch' ? elementOf(dtypeNode.name) : undefined;
	const typeName = storageType?.type === 'global' ? storageType.name : '?';
	const element = dtype ?? elementOf(STORAGE_DTYPES[typeName]);
	if (element === undefined) return unreadable(`its element type (${typeName}) is not one this reader decodes`);
	// An UntypedStorage counts bytes: the offset is in elements of the dtype all the same.
	const width = DTYPE_BYTES[element] ?? 0;
	if (elementSize(typeName) === null) return unreadable(`storage class ${typeName} is not known`);
	const bytes = await file.readStorage(key, offset * width, width);
	if (typeof bytes === 'string') return unreadable(bytes);
	return {status: 'ok', value: decode(bytes, element)};
}
