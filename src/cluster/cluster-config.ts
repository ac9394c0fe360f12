import {LineCounter, parseDocument} from 'yaml';
import {checkNesting, readConfigText} from '../config/config-text.js';
import {errorMessage, UsageError} from '../core/errors.js';
import {clusterProblem, type Problem} from './cluster-rules.js';
import type {DeclaredNode} from './declared-vs-seen.js';
import {type ClusterConfig, clusterSchema, toClusterConfig} from './cluster-schema.js';
import {lineOf, nodeLines} from './yaml-lines.js';
import {schemaProblem} from './schema-problem.js';

// `--cluster cluster.yaml`: the nodes to watch, read as the seed's cluster config (see cluster-schema.ts). Every
// failure is a UsageError (exit 2) that names the file, the line where the YAML has one, the node and the rule.

/** The YAML parser's message without its own " at line N, column M:" and the source excerpt after it. */
function yamlReason(code: string, message: string): string {
	if (code === 'MULTIPLE_DOCS') return 'a second document ("---"): a cluster.yaml is one document';
	return message.replace(/ at line \d+, column \d+:[\s\S]*$/, '');
}

/** A checked cluster.yaml: its nodes, each with the file and its lines (findings about a node name them). */
export interface ClusterFile {
	readonly config: ClusterConfig;
	/** In the order of `config.nodes`. */
	readonly nodes: readonly DeclaredNode[];
}

/** The config in `text`; `file` names it in messages. */
function parseClusterFile(text: string, file: string): ClusterFile {
	const lines = new LineCounter();
	const doc = parseDocument(text, {lineCounter: lines});
	const syntax = doc.errors[0];
	if (syntax) {
		const at = syntax.linePos?.[0];
		const where = at ? ` line ${at.line}, column ${at.col}` : '';
		throw new UsageError(`${file}${where}: not valid YAML: ${yamlReason(syntax.code, syntax.message)}`);
	}
	let raw: unknown;
	try {
		raw = doc.toJS();
	} catch (error) {
		// An alias bomb (the parser caps expansion) or the like.
		throw new UsageError(`${file}: not usable YAML: ${errorMessage(error)}`);
	}
	if (raw === null || raw === undefined)
		throw new UsageError(`${file}: empty; a cluster.yaml lists its nodes under "nodes:"`);
	const report = (problem: Problem): UsageError => {
		const line = lineOf(doc, lines, problem.path);
		return new UsageError(`${file}${line === null ? '' : ` line ${line}`}: ${problem.message}`);
	};
	const parsed = clusterSchema.safeParse(raw);
	if (!parsed.success) throw report(schemaProblem(parsed.error.issues, raw));
	const config = toClusterConfig(parsed.data);
	const problem = clusterProblem(config);
	if (problem) throw report(problem);
	const nodes = config.nodes.map((node, i) => ({file, node, lines: nodeLines(doc, lines, i, node.gpus.length)}));
	return {config, nodes};
}

/** Read and check a cluster.yaml; throws a UsageError naming the file, line, node and rule. */
export async function loadClusterFile(file: string): Promise<ClusterFile> {
	const text = (await readConfigText(file, 'cluster file', {missingIsNone: false})) ?? '';
	checkNesting(text, file, 'cluster file');
	return parseClusterFile(text, file);
}

/** The nodes of a checked cluster.yaml (loadClusterFile without the lines). */
export async function loadClusterConfig(file: string): Promise<ClusterConfig> {
	return (await loadClusterFile(file)).config;
}
