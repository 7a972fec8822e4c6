// A national fleet: the console's documents views list the failed documents newest
// first. sales_failed is ordered by branch first, so the operator's page walked sales_pkey
// backwards past every uploaded document to find its 20 failed ones (about 900 on the benchmark's
// big database); this index is the failed documents alone, newest first: a page reads its rows.
export const up = [`create index sales_failed_recent on sales (id desc) where status = 'failed'`];
