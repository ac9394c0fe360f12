/**
 * Bad input from the user: a flag, a config key, an unreadable or unwritable path. The message
 * names what was wrong and the rule it broke; the CLI prints it and exits with status 2.
 */
export class UsageError extends Error {
	override readonly name = 'UsageError';
}

export const EXIT = {
	ok: 0,
	failure: 1,
	usage: 2,
	actionRefused: 3,
	breach: 4,
} as const;
