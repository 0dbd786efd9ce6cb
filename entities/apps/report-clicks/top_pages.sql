-- The most clicked pages of the hour; ${COUNTS}, ${REPORT} and ${LIMIT} are the hive action's <param>s.
CREATE TEMPORARY VIEW counts USING parquet OPTIONS (path '${COUNTS}');
INSERT OVERWRITE DIRECTORY '${REPORT}' USING json
SELECT page, clicks, users FROM counts ORDER BY clicks DESC, page LIMIT ${LIMIT};
