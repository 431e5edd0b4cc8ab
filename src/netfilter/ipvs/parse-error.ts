/** A line of ipvsadm text that could not be read: printed as `FILE:LINE: message`. */
export class IpvsParseError extends Error {
  readonly line: number;
  readonly file: string | undefined;
  constructor(message: string, line: number, file?: string) {
    super(`${file ?? "<ipvs>"}:${line}: ${message}`);
    this.name = "IpvsParseError";
    this.line = line;
    this.file = file;
  }
}
