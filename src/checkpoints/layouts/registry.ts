// Every checkpoint layout, in the order the scan asks them: a specific layout's claim hides an entry from the later
// ones, so outer frameworks come before the ones they wrap (HF before DeepSpeed) and the generic fallback is last.

import {accelerateLayout} from './accelerate.js';
import {dcpLayout} from './dcp.js';
import {composerLayout} from './composer.js';
import {kerasLayout} from './keras.js';
import {tensorflowLayout} from './tensorflow.js';
import {detectron2Layout} from './detectron2.js';
import {fairseqLayout} from './fairseq.js';
import {timmLayout} from './timm.js';
import {ultralyticsLayout} from './ultralytics.js';
import {megatronLayout} from './megatron.js';
import {torchtitanLayout} from './torchtitan.js';
import {orbaxLayout} from './orbax.js';
import {deepspeedLayout} from './deepspeed.js';
import {genericLayout} from './generic.js';
import {huggingfaceLayout} from './huggingface.js';
import type {Layout} from './layout.js';
import {lightningLayout} from './lightning.js';
import {nemoLayout} from './nemo.js';
import {seedLayout} from './seed.js';

export const LAYOUTS: readonly Layout[] = [
	seedLayout,
	huggingfaceLayout,
	accelerateLayout,
	nemoLayout,
	lightningLayout,
	composerLayout,
	kerasLayout,
	tensorflowLayout,
	fairseqLayout,
	timmLayout,
	detectron2Layout,
	ultralyticsLayout,
	megatronLayout,
	torchtitanLayout,
	orbaxLayout,
	deepspeedLayout,
	dcpLayout,
	genericLayout,
];

/** The layout of a given name, or the generic fallback (a name from an older scan). */
export function layoutNamed(name: string): Layout {
	return LAYOUTS.find(layout => layout.name === name) ?? genericLayout;
}
