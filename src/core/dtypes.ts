// Tensor element types by the names PyTorch gives them: their sizes, their other names, and the storage classes that
// hold them. Shared by the preflight estimator (a DataLoader's dtype) and the torch.save reader (a storage's element
// size, a 0-d tensor's value), so that one table says how big a bfloat16 is.

/** Bytes per element, by canonical name. */
export const DTYPE_BYTES: Readonly<Record<string, number>> = {
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
export const DTYPE_ALIASES: Readonly<Record<string, string>> = {
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

/** The element type of each typed storage class torch.save names (torch.FloatStorage holds float32). */
export const STORAGE_DTYPES: Readonly<Record<string, string>> = {
	DoubleStorage: 'float64',
	FloatStorage: 'float32',
	HalfStorage: 'float16',
	BFloat16Storage: 'bfloat16',
	LongStorage: 'int64',
	IntStorage: 'int32',
	ShortStorage: 'int16',
	CharStorage: 'int8',
	ByteStorage: 'uint8',
	BoolStorage: 'bool',
	ComplexFloatStorage: 'complex64',
	ComplexDoubleStorage: 'complex128',
};
