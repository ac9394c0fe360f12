import type {SinkFactories} from './build-sinks.js';

// The sinks' constructors are joined here: `{command: commandSink, webhook: webhookSink, bell: bellSink}` from
// command-sink.ts, webhook-sink.ts and bell-sink.ts. Until they are, no sink is built and no notice is sent.

export const SINK_FACTORIES: SinkFactories | null = null;
