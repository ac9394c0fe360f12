/**
 * Bad input from the user: a flag, a config key, an unreadable or unwritable path. The message
 * names what was wrong and the rule it broke; the CLI prints it and exits with status 2.
 */
export class UsageError extends Error {
	override readonly name = 'UsageError';
}

/** The message of a thrown value, with Node's error code in front when the message lacks it (EACCES …). */
export function errorMessage(error: unknown): string {
	if (error instanceof Error) {
		const code = (error as NodeJS.ErrnoException).code;
		return code !== undefined && !error.message.includes(code) ? `${code} ${error.message}` : error.message;
	}
	return String(error);
}

export const EXIT = {
	ok: 0,
	failure: 1,
	usage: 2,
	actionRefused: 3,
	breach: 4,
} as const;
