import {parseDocument} from 'yaml';
import {errorMessage, UsageError} from '../core/errors.js';

// A training config as text → its content. `.json` files are read as JSON (its own error positions), anything else
// as YAML (the seed's configs are YAML). Every failure names the file, where the parser says, and the rule.

function lineAndColumn(text: string, offset: number): string {
	const before = text.slice(0, offset).split('\n');
	return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

function parseJson(text: string, file: string): unknown {
	try {
		return JSON.parse(text);
	} catch (error) {
		const message = errorMessage(error);
		const at = /at position (\d+)/.exec(message);
		const where = at ? ` at ${lineAndColumn(text, Number(at[1]))}` : '';
		throw new UsageError(`training config ${file} is not valid JSON${where}: ${message}`);
	}
}

function parseYaml(text: string, file: string): unknown {
	const doc = parseDocument(text);
	const syntax = doc.errors[0];
	if (syntax) {
		const at = syntax.linePos?.[0];
		const where = at ? ` at line ${at.line}, column ${at.col}` : '';
		const reason = syntax.message.replace(/ at line \d+, column \d+:[\s\S]*$/, '');
		throw new UsageError(`training config ${file} is not valid YAML${where}: ${reason}`);
	}
	try {
		return doc.toJS();
	} catch (error) {
		throw new UsageError(`training config ${file} is not usable YAML: ${errorMessage(error)}`);
	}
}

/** The config's top-level mapping; a UsageError when it is not valid or not a mapping. */
export function parseTrainConfig(text: string, file: string): Record<string, unknown> {
	const data = /\.json$/i.test(file) ? parseJson(text, file) : parseYaml(text, file);
	if (data === null || data === undefined) throw new UsageError(`training config ${file} is empty`);
	if (typeof data !== 'object' || Array.isArray(data)) {
		throw new UsageError(`training config ${file} must hold a mapping of keys (trainer:, model:, data: …) at the top`);
	}
	return data as Record<string, unknown>;
}
