-- The dashboard's conversation picker (issue 22): a tenant's conversations
-- newest first, or those whose id starts with what was typed. Byte order
-- ("C") makes a prefix one range of the index whatever the database's
-- collation.
CREATE INDEX IF NOT EXISTS conversations_newest ON conversations (tenant, created_at DESC, conversation_id);
CREATE INDEX IF NOT EXISTS conversations_by_id_prefix ON conversations (tenant, (conversation_id COLLATE "C"));
