import {type Document, isMap, isScalar, type LineCounter} from 'yaml';

// Where a value sits in the YAML text, so a message about `nodes[1].gpus[0].vram_mb` can say its line: a key's own
// line for a mapping entry, an item's first line in a list; the nearest enclosing value's for one that is absent
// (a key left to its default).

type Path = readonly (string | number)[];

interface Ranged {
	readonly range?: readonly [number, number, number] | null;
}

function startOf(node: unknown): number | null {
	return (node as Ranged | null)?.range?.[0] ?? null;
}

/** The start offset of the key `key` in the mapping at `parent`, or null when there is no such key. */
function keyStart(doc: Document, parent: Path, key: string): number | null {
	const map = parent.length === 0 ? doc.contents : doc.getIn(parent, true);
	if (!isMap(map)) return null;
	const pair = map.items.find(item => isScalar(item.key) && item.key.value === key);
	return pair ? startOf(pair.key) : null;
}

/** 1-based line of the value at `path`, else of its nearest ancestor; null for an empty document. */
export function lineOf(doc: Document, lines: LineCounter, path: Path): number | null {
	for (let end = path.length; end >= 0; end--) {
		const at = path.slice(0, end);
		const last = at.at(-1);
		const offset =
			last === undefined
				? startOf(doc.contents)
				: typeof last === 'string'
					? keyStart(doc, at.slice(0, -1), last)
					: startOf(doc.getIn(at, true));
		if (offset !== null) return lines.linePos(offset).line;
	}
	return null;
}

/** Where a node's parts sit in cluster.yaml: what a finding about that node (declared-vs-seen.ts) names. */
export interface NodeLines {
	/** The node's own first line (its list item). */
	readonly node: number | null;
	/** The `gpus:` key; null where the node has none. */
	readonly gpus: number | null;
	/** Each listed GPU's first line, in the file's order. */
	readonly gpu: readonly (number | null)[];
	/** null where the key is not set: the seed's default applies (max_adapters 1). */
	readonly maxAdapters: number | null;
	readonly cpuCores: number | null;
	readonly ramMb: number | null;
}

/** The lines of node `index` (with `gpuCount` GPUs) in the file. */
export function nodeLines(doc: Document, lines: LineCounter, index: number, gpuCount: number): NodeLines {
	const at: Path = ['nodes', index];
	const key = (name: string): number | null => {
		const start = keyStart(doc, at, name);
		return start === null ? null : lines.linePos(start).line;
	};
	return {
		node: lineOf(doc, lines, at),
		gpus: key('gpus'),
		gpu: Array.from({length: gpuCount}, (_, j) => lineOf(doc, lines, [...at, 'gpus', j])),
		maxAdapters: key('max_adapters'),
		cpuCores: key('cpu_cores'),
		ramMb: key('ram_mb'),
	};
}
