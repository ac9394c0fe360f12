// The version of traintop's --json output (`ranks`, `checkpoints`, `signal`, and headless mode's JSON Lines), one
// number for all of them: scripts check it before they read. Bumped on any change a reader of the previous version
// would misread (a key renamed, removed or retyped, a meaning changed); new keys may appear without a bump. Two
// contracts keep their own versions and are not covered: `--analyze --json` and the agent protocol (`protocol` in
// its hello). The memory-log records headless --json prints between its events are the memory log's own format.
const JSON_SCHEMA_VERSION = 1;

/** `{"schema_version": 1, …body}`: the version first, where a reader (or a human skimming) meets it. */
export function versioned<Body extends object>(
	body: Body,
): {readonly schema_version: typeof JSON_SCHEMA_VERSION} & Body {
	return {schema_version: JSON_SCHEMA_VERSION, ...body};
}
