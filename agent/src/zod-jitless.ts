// zod compiles a parser of its own (new Function) for each object schema it checks: source text, bytecode and
// closures (~0.4 MiB resident) for the few messages a second an idle agent parses. main.ts imports this before
// the rest of the agent: the setting is read when a schema is built.
import { config } from 'zod';

config({ jitless: true });
