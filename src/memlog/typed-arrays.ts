// Typed arrays that grow: the memory-log series keep their numbers in these instead of JS arrays
// or an object per point. A copy happens only when the capacity changes.

/** A copy of `array` with room for exactly `capacity` items (never smaller than it is). */
export function resize<T extends Float64Array | Float32Array | Uint32Array | Int32Array>(
	array: T,
	capacity: number,
): T {
	if (capacity <= array.length) return array;
	const next = new (array.constructor as new (n: number) => T)(capacity);
	next.set(array);
	return next;
}

/** `array` if `size` items fit, else a copy with its capacity doubled until they do. */
export function grow<T extends Float64Array | Float32Array | Uint32Array | Int32Array>(array: T, size: number): T {
	if (size <= array.length) return array;
	let capacity = array.length;
	while (capacity < size) capacity *= 2;
	const next = new (array.constructor as new (n: number) => T)(capacity);
	next.set(array);
	return next;
}
