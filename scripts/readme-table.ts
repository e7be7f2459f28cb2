#!/usr/bin/env bun
/** Prints the README's command table from the command registry (paste between the markers). */
import { readmeTable } from "../src/commands";

console.log(readmeTable());
