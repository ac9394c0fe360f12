/**
 * The presses in one input: a key held down (its repeat) can reach Ink as one string, `jjjj`, each a press. Only a
 * run of the same key is split; mixed text is a paste, and a pasted `y` must not answer a confirm box.
 */
export function keyPresses(input: string, key: {readonly ctrl?: boolean; readonly meta?: boolean}): string[] {
	const repeated = input.length > 1 && !key.ctrl && !key.meta && [...input].every(c => c === input[0]);
	return repeated ? [...input] : [input];
}
