// YAML for the few layouts that read a framework's config file (LightningCLI's config.yaml, timm's args.yaml,
// Detectron2's LazyConfig). Loaded on first use: the parser costs every traintop start ~20 ms to import, and most run
// dirs have no such file.

type Parse = (text: string) => unknown;

let loading: Promise<Parse> | null = null;

/** The document's value; throws the parser's error on text that is not YAML (callers turn it into a warning). */
export async function parseYaml(text: string): Promise<unknown> {
	// logLevel 'error': a warning (an unknown %directive) would otherwise go to process.emitWarning, which prints the
	// run dir file's own text, source excerpt and all, on stderr, over the TUI.
	loading ??= import('yaml').then(yaml => (source: string) => yaml.parse(source, {logLevel: 'error'}) as unknown);
	const parse = await loading;
	return parse(text);
}

/**
 * The parser's complaint without the file's text (some messages end in it: `Unresolved alias …: NAME`): its code and
 * where, `BLOCK_AS_IMPLICIT_KEY at line 1, column 4`. A run dir file's contents never go into a message.
 */
export function yamlProblem(caught: unknown): string {
	const {code, linePos} = caught as {code?: unknown; linePos?: readonly {line: number; col: number}[]};
	const at = linePos?.[0];
	return `${typeof code === 'string' ? code : 'not parsable'}${at ? ` at line ${at.line}, column ${at.col}` : ''}`;
}
