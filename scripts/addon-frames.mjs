// Whether a stack frame printed by a sanitizer or by valgrind is the addon's: one of its sources
// under native/, node-addon-api's header (its inline wrappers are compiled into the addon), or
// the module itself when no line is known. The leak and memory checks judge the addon by this
// and leave Node's and V8's own findings to their suppressions.
export const ADDON_FRAME = /(?:^|[\s/(])native\/[^\s:()]+\.(?:cc|h):\d+|node-addon-api\/napi[^\s:()]*\.h:\d+|volbench\.node\b/;
