# exported: 2026-11-23T09:58:38Z
# server: demo API (in-process)
# filter: (none)
# sort: DisplayName ascending
# rows: 8
≠,DisplayName,Name (URL name),Region,Users,Projects,Created
,(none set = Name),riverside-infra,EU West (Ireland),8,2,2024-06-02
,(none set = Name),lakeshore-partners-1,US East,26,3,2024-01-09
,(none set = Name),copperleaf-partners-3,US East,26,3,2023-01-27
,(none set = Name),silverline-contractors-4,EU West (Ireland),24,3,2023-11-08
≠,[i]Skyline[/i] Developments,skyline-dev,US East,2,1,2025-09-09
≠,ACME Construction Group,acme-build,US East,13,3,2023-03-14
≠,Harbor Contractors,harbor-contractors-2,EU West (Ireland),26,3,2025-04-16
≠,Nordic Rail Alliance,nordic-rail,EU West (Ireland),20,6,2025-01-20
