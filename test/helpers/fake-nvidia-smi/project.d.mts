// Types for project.mjs, for the TypeScript tests that project recordings directly.

import type {CannotAnswer, Catalogue, QueryKind, Table} from './scenario.mjs';

export class MissingField extends CannotAnswer {
	readonly field: string;
}

export function formatTimestamp(date?: Date): string;
export function parseFormat(spec: string): {noheader: boolean; nounits: boolean} | null;
export function projectTable(
	table: Table,
	requested: readonly string[],
	options: {
		query: QueryKind;
		catalogue: Catalogue;
		noheader: boolean;
		nounits: boolean;
		timestamp?: string | null;
		/** true: `[N/A]` for any field not recorded; 'known': only for fields fields.json lists; false: throw. */
		fillMissing?: boolean | 'known';
	},
): string[];
