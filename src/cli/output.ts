/** The `--output` formats shared by every command. */
import { stringify } from "yaml";
import { CliError } from "./exit.js";

export type OutputFormat = "text" | "json" | "yaml" | "tsv";

export function parseOutputFormat(value: string, allowed: readonly OutputFormat[]): OutputFormat {
  if ((allowed as readonly string[]).includes(value)) return value as OutputFormat;
  throw new CliError(
    `--output: unsupported value "${value}": supported values: ${allowed.map((a) => `"${a}"`).join(", ")}`,
  );
}

/** Serializes data for json/yaml output; text and tsv are rendered by each command. */
export function renderData(data: unknown, format: "json" | "yaml"): string {
  return format === "json" ? `${JSON.stringify(data, null, 2)}\n` : stringify(data);
}
