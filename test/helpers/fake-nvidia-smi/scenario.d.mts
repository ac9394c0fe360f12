// Types for scenario.mjs, for the TypeScript tests that use the loader directly.

export const DEFAULT_FIXTURES_ROOT: string;

export class CannotAnswer extends Error {}

export type QueryKind = 'query-gpu' | 'query-compute-apps';

export interface Column {
	readonly name: string;
	readonly unit: string | null;
}

export interface Table {
	readonly columns: readonly Column[];
	readonly rows: readonly (readonly string[])[];
}

export type Catalogue = Record<QueryKind, {aliases: Map<string, string>; units: Map<string, string>}>;

export type Scenario =
	| {
			readonly kind: 'data';
			readonly name: string;
			readonly file: string;
			readonly frames: Record<QueryKind, Table[]>;
			readonly list: string | null;
			/** The recorded `--help-query-gpu` text; null when none was recorded. */
			readonly help: string | null;
			readonly append: string | null;
			readonly exit: number;
	  }
	| {
			readonly kind: 'error';
			readonly name: string;
			readonly file: string;
			readonly text: string;
			readonly exit: number;
			/** The field an invalid-field recording names; null for other errors. */
			readonly field: string | null;
	  };

export function loadCatalogue(root?: string): Catalogue;
export function canonicalField(catalogue: Catalogue, query: QueryKind, field: string): string;
export function parseHeaderCell(cell: string): Column;
export function splitRecordedLine(line: string, columns: readonly Column[]): string[];
export function captureAlias(stem: string): string | null;
export function resolveScenarioFile(name: string, root?: string): string | null;
export function loadScenario(name: string, root?: string, catalogue?: Catalogue): Scenario;
