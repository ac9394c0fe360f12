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
