// UNSPSC-style item classifications the simulator publishes (8 digits; codes ending in 00 are
// class level, the rest commodity level), chosen for what Zambian merchants sell.
export const CATALOGUE_TEXT = `
10101500 Livestock
10101507 Sheep
10101508 Goats
10101511 Swine
10101512 Rabbits
10101516 Cattle
10111300 Domestic pet products
10111302 Pet food
10121500 Livestock feed
10121501 Pure wheat bran
10121503 Cattle feed
10121505 Chicken feed
10121507 Fish feed
10151500 Vegetable seeds and seedlings
10151501 Bean seeds or seedlings
10151513 Onion seeds or seedlings
10151515 Cabbage seeds or seedlings
10151518 Tomato seeds or seedlings
10151600 Cereal seeds
10151601 Wheat seeds
10151603 Maize seeds
10151604 Rice seeds
10151607 Sorghum seeds
10171500 Organic fertilizers and plant nutrients
10171501 Manure
10171502 Potash
10171505 Compost
10171600 Chemical fertilizers and plant nutrients
10171601 Nitrogen fertilizer
10171602 Phosphorous fertilizer
10171604 Compound fertilizer
10171700 Herbicides
10191500 Pesticides or pest repellents
10191506 Insecticides
10191507 Fungicides
14111500 Printing and writing paper
14111507 Printer or copier paper
14111511 Writing paper
14111514 Paper pads or notebooks
14111515 Receipt or cash register rolls
14111700 Personal paper products
14111701 Facial tissues
14111703 Paper towels
14111704 Toilet tissue
14111705 Paper napkins or serviettes
14111706 Paper table cloths
14121500 Paperboard and packaging papers
14121503 Kraft paper
15101500 Petroleum and distillates
15101502 Kerosene
15101505 Diesel fuel
15101506 Petrol
15111500 Gaseous fuels and additives
15111501 Propane
15111505 Butane
15111510 Liquefied petroleum gas
15121500 Lubricating preparations
15121501 Engine oil
15121503 Gear oil
15121504 Hydraulic oil
15121508 Transmission oil
15121902 Greases
21101500 Agricultural machinery for soil preparation
21101501 Ploughs
21101502 Harrows
21101506 Graders or land levelers
21101700 Harvesting machinery and equipment
21101705 Threshing machines
21101711 Corn sheller
21101900 Livestock equipment
21101901 Milking machines
21102100 Agricultural processing machinery and equipment
24111500 Bags
24111502 Paper bags
24111503 Plastic bags
24121500 Packaging boxes and bags and pouches
24121503 Packaging boxes
24122000 Bottles
24122002 Plastic bottles
24122003 Glass bottles
25101500 Passenger motor vehicles
25101501 Minibuses
25101502 Buses
25101503 Cars
25101505 Minivans or vans
25101507 Light trucks or sport utility vehicles
25101600 Product and material transport vehicles
25101601 Dump trucks
25101604 Delivery trucks
25101611 Cargo trucks
25101800 Motorized cycles
25101801 Motorcycles
25101802 Scooters
25101803 Mopeds
25161500 Bicycles
25161507 Bicycles
25172500 Tires and tire tubes
25172502 Automobile tire tubes
25172503 Heavy truck tires
25172504 Automobile or light truck tires
25172506 Bicycle tires
25172509 Heavy truck tire tube
26101600 Batteries and generators and kinetic power transmission
26101603 Generators
26111700 Batteries and cells and accessories
26111701 Rechargeable batteries
26111702 Alkaline batteries
26111703 Lead acid batteries
26111704 Lithium batteries
26111711 Battery chargers
26121600 Electrical cable and accessories
26121601 Building wire
26121604 Power cable
26121609 Network cable
26131500 Power generation
26131507 Solar panels
27111500 Cutting and crimping and punching tools
27111501 Utility knives
27111508 Saws
27111600 Forming tools
27111601 Hammers
27111700 Wrenches and drivers
27111701 Screwdrivers
27111703 Socket sets
27111707 Adjustable wrenches
27111800 Measuring and layout tools
27111801 Tape measures
27111803 Spirit levels
27112000 Agricultural hand tools
27112001 Machetes
27112003 Rakes
27112004 Hoes
27112005 Shovels
27112014 Wheelbarrows
27112100 Gripping and clamping tools
27112101 Pliers
27112700 Power tools
27112703 Power drills
27112706 Angle grinders
30111500 Concrete and mortars
30111501 Ready mix concrete
30111600 Cement and lime
30111601 Cement
30111604 Slaked lime
30131500 Blocks
30131502 Concrete blocks
30131600 Bricks
30131602 Clay bricks
30151500 Roofing materials
30151502 Roofing membranes
30151505 Roofing tiles
30151507 Iron roofing sheets
30161500 Wall finishing materials
30161700 Floor coverings
30161701 Carpeting
30161705 Floor tiles
30171500 Doors
30171600 Windows
30181500 Sanitary ware
30181501 Bathtubs
30181505 Toilets
30181506 Washbasins
31161500 Screws
31161600 Bolts
31161700 Nuts
31161800 Washers
31162000 Nails
31162001 Bare nails
31162002 Roofing nails
31162400 Miscellaneous fasteners
31162403 Padlocks
31201500 Tape
31201600 Other adhesives and sealants
31211500 Paints and primers and finishes
31211502 Water based paints
31211505 Oil based paints
31211508 Acrylic paints
31211600 Paint additives
31211601 Paint thinners
31211900 Paint applicators and painting accessories
31211904 Paint brushes
31211906 Paint rollers
39101600 Lamps and lightbulbs
39101601 Halogen lamps
39101602 Incandescent lamps
39101605 Fluorescent lamps
39101628 LED lamps
39111500 Interior lighting fixtures
39111600 Exterior lighting fixtures
39112100 Torches
39121000 Power conditioning equipment
39121011 Uninterruptible power supplies
39121400 Electrical lugs plugs and connectors
39121402 Electrical plugs
39121406 Electrical sockets
39122200 Electrical switches and accessories
39122201 Light switches
40101600 Air circulation and parts
40101604 Fans
40101700 Cooling equipment
40101701 Air conditioners
40101800 Heating equipment
40101811 Water heaters
40141700 Hardware and fittings
40141719 Pipe couplings
40142000 Hoses
40142001 Air hose
40142008 Water hose
40151500 Pumps
40151501 Water pumps
40171500 Commercial pipe and piping
40171523 Plastic pipe
42131600 Medical staff apparel and related articles
42131606 Face masks
42132200 Medical gloves and accessories
42132203 Medical examination gloves
42181801 Thermometers
42311500 Bandages and dressings
42311501 Elastic bandages
42311505 Gauze
42312000 First aid kits
43191500 Personal communication devices
43191501 Mobile phones
43191504 Fixed phones
43191507 Two way radios
43191600 Personal communication device accessories
43191610 Mobile phone chargers
43191612 Mobile phone cases
43201800 Media storage devices
43202000 Removable storage media
43202005 Flash memory storage cards
43202010 USB flash drives
43211500 Computers
43211503 Notebook computers
43211507 Desktop computers
43211509 Tablet computers
43211600 Computer accessories
43211700 Computer data input devices
43211706 Keyboards
43211708 Computer mice
43211900 Computer displays
43211902 LCD monitors
43212100 Computer printers
43212104 Inkjet printers
43212105 Laser printers
43212110 Multi function printers
43222600 Network service equipment
43222609 Network routers
43222612 Network switches
44101700 Printer and photocopier accessories
44103100 Printer and facsimile and photocopier supplies
44103103 Toner
44103105 Ink cartridges
44121600 Desk supplies
44121604 Stamps
44121615 Staplers
44121618 Scissors
44121700 Writing instruments
44121701 Rollerball pens
44121704 Ball point pens
44121706 Wooden pencils
44121707 Coloured pencils
44121708 Markers
44121716 Highlighters
44122000 Folders and binders
44122003 Binders
44122011 Folders
44122100 Fastening supplies
44122101 Rubber bands
44122104 Paper clips
44122107 Staples
46181500 Safety apparel
46181501 Protective aprons
46181503 Protective coveralls
46181504 Protective gloves
46181600 Safety footwear
46181604 Safety boots
46191600 Fire protection equipment
46191601 Fire extinguishers
47121700 Waste containers and accessories
47121701 Trash bags
47131500 Cleaning rags and cloths
47131501 Rags
47131502 Cleaning cloths
47131600 Brooms and mops and brushes
47131604 Brooms
47131605 Mops
47131700 Restroom supplies
47131800 Cleaning and disinfecting solutions
47131801 Floor cleaners
47131803 Disinfectants
47131805 General purpose cleaners
47131807 Bleach
47131810 Dishwashing detergents
47131811 Laundry detergents
49161500 Field and court sports equipment
49161509 Footballs
49161510 Netballs
50101500 Vegetables
50101700 Fruits
50102500 Nuts
50102515 Cashew nuts, shelled
50102518 Groundnuts, shelled
50111500 Minimally processed meat and poultry
50111510 Beef, minimally processed
50111513 Chicken, minimally processed
50111515 Pork, minimally processed
50111517 Goat meat, minimally processed
50112000 Processed meat and poultry products
50112004 Beef, processed
50112010 Chicken, processed without additions
50112016 Sausages
50121500 Fish
50121537 Tilapia, fresh
50121538 Kapenta, dried
50121539 Bream, frozen
50131600 Eggs and egg substitutes
50131601 Whole eggs
50131700 Milk and butter products
50131701 Fresh milk
50131702 Butter
50131703 Cream
50131704 Yoghurt
50131705 Sour milk
50131706 Powdered milk
50131800 Cheese
50131801 Natural cheese
50151500 Edible vegetable and plant oils and fats
50151513 Cooking oil
50151514 Margarine
50161500 Chocolate and sugars and sweeteners
50161509 Sugar
50161510 Honey
50161800 Confectionery products
50161813 Chewing gum
50161814 Sweets
50171500 Herbs and spices and extracts
50171550 Table salt
50171551 Curry powder
50171800 Sauces and spreads and condiments
50171830 Tomato sauce
50171832 Peanut butter
50171900 Pickles and relishes and olives
50181700 Baking mixes and supplies
50181708 Baking powder
50181709 Yeast
50181900 Bread and biscuits and cookies
50181901 Fresh bread
50181903 Biscuits
50181905 Buns and rolls
50182000 Cakes and pies and pastries
50182001 Cakes
50192100 Snack foods
50192109 Potato crisps
50192110 Popcorn
50192300 Desserts and dessert toppings
50192303 Ice cream
50192400 Jams and jellies and nut and sweet spreads
50192401 Jams
50192500 Sandwiches and filled rolls
50192700 Packaged combination meals
50192900 Plain pasta or noodles
50192902 Dried pasta
50192903 Instant noodles
50193000 Prepared nutritional foods
50193001 Infant formula
50193002 Baby cereals
50201700 Coffee and tea
50201706 Coffee
50201712 Tea
50202200 Alcoholic beverages
50202201 Beer
50202202 Opaque beer
50202203 Wine
50202205 Spirits
50202206 Cider
50202300 Non alcoholic beverages
50202301 Drinking water
50202304 Soft drinks
50202306 Fruit juices
50202309 Energy drinks
50202310 Maheu
50221000 Pulses
50221001 Dried beans
50221002 Lentils
50221003 Soya beans
50221100 Cereals
50221101 Wheat
50221102 Maize
50221103 Rice
50221104 Sorghum
50221105 Millet
50221200 Processed cereals
50221201 Breakfast cereals
50221202 Oats
50221203 Samp
50221300 Flour and milled products
50221301 Wheat flour
50221302 Breakfast mealie meal
50221303 Roller mealie meal
50221304 Cassava flour
50401700 Fresh vegetables
50401701 Tomatoes
50401702 Onions
50401703 Cabbages
50401704 Rape leaves
50401705 Potatoes
50401706 Sweet potatoes
50401707 Cassava
50401708 Okra
50301500 Fresh fruits
50301501 Apples
50301502 Bananas
50301503 Oranges
50301504 Mangoes
50301505 Avocados
50301506 Watermelons
51101500 Antibacterials
51101501 Amoxicillin
51101502 Ciprofloxacin
51101805 Antimalarials
51142900 Analgesics
51142901 Paracetamol
51142902 Ibuprofen
51191900 Oral rehydration salts
52121500 Bedclothes
52121501 Blankets
52121502 Bed sheets
52121505 Pillows
52121600 Mosquito nets
52141500 Kitchen appliances
52141501 Refrigerators
52141502 Microwave ovens
52141503 Food processors
52141504 Electric kettles
52141505 Electric stoves
52141506 Deep freezers
52141600 Laundry appliances
52141601 Washing machines
52141602 Electric irons
52151500 Disposable kitchenware
52151501 Disposable cups
52151502 Disposable plates
52151600 Kitchen utensils
52151601 Cooking pots
52151602 Frying pans
52152000 Dishes
52152001 Plates
52161500 Audio and visual equipment
52161505 Televisions
52161512 Loudspeakers
52161520 Radios
53101500 Trousers
53101502 Men's trousers
53101504 Women's trousers
53101600 Shirts and blouses
53101602 Men's shirts
53101604 Women's blouses
53101800 Coats and jackets
53101900 Suits
53102000 Dresses and skirts
53102001 Dresses
53102002 Skirts
53102300 Undergarments
53102500 Clothing accessories
53102700 Uniforms
53102701 School uniforms
53111500 Boots
53111600 Shoes
53111601 Men's shoes
53111602 Women's shoes
53111603 Children's shoes
53111900 Sandals
53131500 Dental
53131502 Toothpaste
53131503 Toothbrushes
53131600 Bath and body
53131602 Hair care
53131606 Deodorants
53131608 Bath soap
53131613 Skin lotion
53131615 Sanitary pads
53131619 Cosmetics
53131624 Disposable nappies
55101500 Printed publications
55101504 Newspapers
55101506 Magazines
55101509 Educational textbooks
56101500 Furniture
56101502 Sofas
56101504 Chairs
56101508 Mattresses
56101519 Tables
56101520 Beds
56101700 Office furniture
56101703 Desks
60101700 Teacher resources
60121000 Artists supplies
60141000 Toys
72101500 Building support services
72101507 Building maintenance services
72141100 Road construction
72151500 Electrical systems services
72151700 Plumbing services
76111500 General building and office cleaning services
76121500 Refuse collection services
78101800 Road cargo transport
78101802 Freight transport by road
78111800 Passenger road transportation
78111802 Bus services
78111803 Taxi services
78131600 Storage services
78181500 Vehicle maintenance and repair services
78181501 Vehicle repair services
80101500 Business and corporate management consultation services
80101507 Information technology consultation services
80111600 Temporary personnel services
80131500 Renting of real estate
80131502 Commercial building rental
81111500 Software engineering
81112100 Internet services
81112101 Internet service providers
81112200 Software maintenance and support
83101500 Water and sewer utilities
83101800 Electric utilities
83111600 Mobile communications services
83111603 Cellular telephone services
84111500 Accounting services
84111502 Financial accounting services
84111600 Audit services
84121500 Banking institutions
84131500 Insurance services for structures and property
84131600 Life and health insurance
85101500 Health care centres
85121500 Medical practice
86101700 Vocational training
86121500 Primary schools
86121700 Universities and colleges
90101500 Eating and drinking establishments
90101501 Restaurants
90101502 Catering services
90101503 Fast food
90101504 Bars
90111500 Hotels and lodging
90111501 Hotels
90111502 Lodges
90121500 Travel agents
91111500 Laundry services
91111700 Hairdressing and beauty services
92121500 Guard services
92121504 Security guard services
`;
