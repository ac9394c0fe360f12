/** A non-negative integer environment value ("3", " 3 "); null when absent or anything else. */
export function envInteger(value: string | undefined): number | null {
	return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : null;
}
