import type { Timestamp } from './columns.ts';

/** A branch's Z report: the day's figures as they were when the day was closed, never changed. */
interface DailyReportsTable {
  device_id: number;
  /** The merchant's calendar day, `YYYY-MM-DD`, in its timezone when the day was closed. */
  day: string;
  tenant_id: number;
  branch: string;
  /** JSON of the report (`DailyReport` in src/domain/fiscal/reports/schemas.ts) as it was answered at closing. */
  report: string;
  closed_at: Timestamp;
  /** Who closed it: `tenant_token:<id>`, `partner_key:<id>` or `admin`. */
  closed_by: string;
}

export interface ReportTables {
  daily_reports: DailyReportsTable;
}
