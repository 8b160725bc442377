"""The fault-injection harness (tools/chaos): a cluster on throwaway Redis and PostgreSQL
(`world`), devices doing random call ops (`devices`), a nemesis breaking things (`nemesis`) and a
checker judging the quiesced run (`checker`)."""
