import {bellSink} from './bell-sink.js';
import type {SinkFactories} from './build-sinks.js';
import {commandSink} from './command-sink.js';
import {webhookSink} from './webhook-sink.js';

// The sinks' constructors, one line each: a new sink is its own file and one line here.
export const SINK_FACTORIES: SinkFactories = {command: commandSink, webhook: webhookSink, bell: bellSink};
