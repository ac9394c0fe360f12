// Percentiles without sorting: a million-point metric was sorted (70–80 ms each) only to read two
// ranks of it. Quickselect finds a rank in linear time, in place.

/** Rearranges a[from, to) so that a[k] is the value a sort would put there; a[k+1…) are ≥ it. */
function select(a: Float32Array, k: number, from: number, to: number): void {
	let lo = from;
	let hi = to - 1;
	while (hi > lo) {
		// Median of three as the pivot, so sorted and constant runs stay linear.
		const mid = lo + ((hi - lo) >> 1);
		const x = a[lo]!;
		const y = a[mid]!;
		const z = a[hi]!;
		const pivot = x < y ? (y < z ? y : Math.max(x, z)) : x < z ? x : Math.max(y, z);
		let i = lo;
		let j = hi;
		while (i <= j) {
			while (a[i]! < pivot) i++;
			while (a[j]! > pivot) j--;
			if (i <= j) {
				const t = a[i]!;
				a[i] = a[j]!;
				a[j] = t;
				i++;
				j--;
			}
		}
		if (k <= j) hi = j;
		else if (k >= i) lo = i;
		else return;
	}
}

/**
 * Percentile q∈[0,1] of the finite values in `a`, linear interpolation between the closest ranks
 * (the same numbers as reading a sorted copy). Reorders `a`.
 */
export function percentile(a: Float32Array, q: number): number {
	const n = a.length;
	if (n === 0) return Number.NaN;
	const rank = (n - 1) * q;
	const lo = Math.floor(rank);
	select(a, lo, 0, n);
	const low = a[lo]!;
	if (lo + 1 >= n || rank === lo) return low;
	// Everything right of lo is ≥ a[lo]: the next rank is their minimum.
	let high = a[lo + 1]!;
	for (let i = lo + 2; i < n; i++) if (a[i]! < high) high = a[i]!;
	return low + (high - low) * (rank - lo);
}

/** The largest value of a (NaN when empty). */
export function maxOf(a: Float32Array): number {
	let max = Number.NEGATIVE_INFINITY;
	for (let i = 0; i < a.length; i++) if (a[i]! > max) max = a[i]!;
	return a.length === 0 ? Number.NaN : max;
}
