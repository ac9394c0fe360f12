// Quickselect (Hoare's selection with a median-of-three pivot): the k-th smallest of a range in linear time, in
// place. Shared by --analyze's percentiles (memlog/percentile.ts) and the trend's medians (core/theil-sen.ts).

/** Rearranges a[from, to) so that a[k] is the value a sort would put there; a[k+1…) are ≥ it. */
export function select(a: Float32Array | Float64Array, k: number, from: number, to: number): void {
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
