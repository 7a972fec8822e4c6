import type { NullableTimestamp, Timestamp } from './columns.ts';

/** Per branch: the backlog episode an alarm was fired for, if one is open. */
export interface BacklogAlarmsTable {
  device_id: number;
  /** The highest age threshold (seconds) fired in the open episode; null when none is open. */
  threshold_sec: number | null;
  /** When the oldest pending document of the episode was stored. */
  episode_started_at: NullableTimestamp;
  /** The newest pending document when the last alarm fired: the episode ends once none up to it is pending. */
  watermark_sale_id: number | null;
  fired_at: NullableTimestamp;
  updated_at: Timestamp;
}

/** How many branches each partner's merchants have, kept by triggers on devices (migration 0035). */
interface PartnerBranchCountsTable {
  /** 0: the self-serve merchants (no partner). */
  partner_id: number;
  branches: number;
}

/** How many failed documents each partner's merchants have, kept by triggers on sales (migration 0035). */
interface PartnerFailedDocumentsTable {
  /** 0: the self-serve merchants (no partner). */
  partner_id: number;
  documents: number;
}

/** Each partner's failed documents, kept by triggers on sales (migration 0035): the partner's documents view reads a range. */
interface PartnerFailedSalesTable {
  /** 0: the self-serve merchants (no partner). */
  partner_id: number;
  sale_id: number;
}

export interface ConsoleTables {
  backlog_alarms: BacklogAlarmsTable;
  partner_branch_counts: PartnerBranchCountsTable;
  partner_failed_documents: PartnerFailedDocumentsTable;
  partner_failed_sales: PartnerFailedSalesTable;
}
