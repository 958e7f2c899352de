/** Where in the file a load failed: XML/CSV give line+column, workbooks give sheet+row. */
export interface SanctionsLoadPosition {
  line?: number;
  column?: number;
  row?: number;
  sheet?: string;
}

/**
 * A list file that cannot be read. The caller keeps the previous snapshot in force, so the
 * message must let an operator find the defect without opening a debugger.
 */
export class SanctionsLoadError extends Error {
  readonly code = 'invalid_list_file' as const;

  constructor(
    readonly fileName: string,
    readonly position: SanctionsLoadPosition,
    readonly reason: string,
  ) {
    super(`${fileName}${SanctionsLoadError.describe(position)}: ${reason}`);
    this.name = 'SanctionsLoadError';
  }

  private static describe(p: SanctionsLoadPosition): string {
    if (p.row !== undefined) return `${p.sheet ? ` sheet "${p.sheet}"` : ''} row ${p.row}`;
    if (p.line !== undefined) return `:${p.line}${p.column !== undefined ? `:${p.column}` : ''}`;
    return '';
  }
}
