#!/usr/bin/env node
import { registerApplicationCommands } from './application-commands.js';
import { registerDeviceCommands } from './device-commands.js';
import { registerHealthCommands } from './health-commands.js';
import { registerIamCommands } from './iam-commands.js';
import { registerLimitsCommands } from './limits-commands.js';
import { registerOsCommands } from './os-commands.js';
import { processIo } from './io.js';
import { createProgram, runProgram } from './program.js';

const io = processIo();
const { program, ctxFactory } = createProgram(io);
registerIamCommands(program, ctxFactory);
registerHealthCommands(registerDeviceCommands(program, ctxFactory), ctxFactory);
registerLimitsCommands(program, ctxFactory);
registerOsCommands(program, ctxFactory);
registerApplicationCommands(program, ctxFactory);
process.exitCode = await runProgram(program, process.argv.slice(2), io);
