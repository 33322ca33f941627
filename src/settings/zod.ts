// zod/mini, configured once for every schema of ours: the same checks and messages as zod's chained API at a
// fraction of the cost of building a schema, which a session with the watchdog on does at every start.
import { z } from "zod/mini";
import english from "zod/v4/locales/en.js";

// Settings are parsed a few times a session: compiling a fast path per object schema (zod's JIT) costs more at start-up
// than it ever saves. zod/mini carries no messages of its own: English, as zod's full API has.
z.config({ jitless: true, ...english() });

export { z };
