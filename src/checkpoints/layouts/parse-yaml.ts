// YAML for the few layouts that read a framework's config file (LightningCLI's config.yaml, timm's args.yaml,
// Detectron2's LazyConfig). Loaded on first use: the parser costs every traintop start ~20 ms to import, and most run
// dirs have no such file.

type Parse = (text: string) => unknown;

let loading: Promise<Parse> | null = null;

/** The document's value; throws the parser's error on text that is not YAML (callers turn it into a warning). */
export async function parseYaml(text: string): Promise<unknown> {
	loading ??= import('yaml').then(yaml => yaml.parse as Parse);
	const parse = await loading;
	return parse(text);
}
