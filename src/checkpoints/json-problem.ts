/**
 * JSON.parse's complaint without the file's text: V8 quotes the bytes around the fault (`Unexpected token 'r',
 * "root:*:195"... is not valid JSON`), and a file's contents never go into a message (it may be a secret reached
 * through a link, or carry terminal escapes). What is left is the fault's kind and its position.
 */
export function jsonProblem(caught: unknown): string {
	const message = caught instanceof Error ? caught.message : String(caught);
	if (!/["']/.test(message)) return message;
	const at = /at position (\d+)/.exec(message);
	return `Unexpected character in JSON${at ? ` at position ${at[1]}` : ''}`;
}
